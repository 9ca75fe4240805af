// Runs the real C++ Optimizer (built by build.sh beside this file) on a trace `lmt convert` wrote, for the optional
// side-by-side case of the end-to-end bench (LMT_BENCH_OPTIMIZER=<binary>). The Feb 2026 Optimizer reads the same
// Get+Write rows with `timestamp_us` for `timestamp_ns` (the same numbers) and classifies a row with `input_len`
// as a write, so the adapted trace renames the one and drops the other; its `quota_capacity` counts blocks.
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export interface OptimizerRun {
  seconds: number
  cpuSeconds: number
  rssMb: number
}

/** Writes `src` (an lmt Get+Write trace) as the Optimizer's optimizer_schema trace at `dst`. */
export function adaptTrace(src: string, dst: string): void {
  const text = readFileSync(src, 'utf8')
    .replaceAll('"timestamp_ns":', '"timestamp_us":')
    .replaceAll(/, "input_len": \d+/g, '')
  writeFileSync(dst, text)
}

/** Writes the Optimizer configuration of `lmt simulate --capacity-blocks <blocks> --policy <policy>`. */
export function writeOptimizerConfig(dir: string, trace: string, policy: string, blocks: number): string {
  const config = {
    trace_file_path: trace,
    trace_type: 'optimizer_schema',
    output_result_path: join(dir, `optimizer-out-${policy}`),
    eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
    instance_groups: [
      {
        group_name: 'default',
        quota_capacity: blocks,
        used_percentage: 1.0,
        hierarchical_eviction_enabled: false,
        storages: [
          {unique_name: 's', storage_type: 'pace', band_width_mbps: 1, priority: 0, capacity: blocks},
        ],
        instances: [
          {
            instance_id: 'instance',
            block_size: 512,
            eviction_policy_type: policy,
            eviction_policy_params: {sample_rate: 0.1},
          },
        ],
      },
    ],
  }
  const path = join(dir, `optimizer-${policy}.json`)
  writeFileSync(path, JSON.stringify(config))
  return path
}

/** Runs the Optimizer under GNU time: wall, user + system CPU and peak RSS of the process. */
export function runOptimizer(binary: string, config: string): OptimizerRun {
  const res = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', binary, config], {encoding: 'utf8'})
  if (res.status !== 0) throw new Error(`${binary} ${config} exited ${res.status}\n${res.stderr}`)
  const [wall, user, system, rssKb] = res.stderr.trim().split('\n').pop()!.split(' ').map(Number)
  return {seconds: wall, cpuSeconds: user + system, rssMb: rssKb / 1024}
}

/** Per-get rows `cached read hit` of an Optimizer or lmt hit-rate CSV, to compare the two runs row by row. */
export function hitRows(csv: string, columns: [string, string, string]): string[] {
  const [head, ...rows] = readFileSync(csv, 'utf8').trim().split('\n')
  const names = head.split(',').map((s) => s.trim())
  const at = columns.map((c) => names.indexOf(c))
  if (at.includes(-1)) throw new Error(`${csv}: no column among ${columns.join(', ')}`)
  return rows.map((row) => {
    const cells = row.split(',').map((s) => s.trim())
    return at.map((i) => cells[i]).join(' ')
  })
}
