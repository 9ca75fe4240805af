// What a newcomer's mistakes get: a trace given as the configuration, a configuration whose trace is not there yet,
// a policy the schema does not know (the allowed values listed); and what a run prints: no table for a sweep, a
// line saying what local and remote are under a single run's table.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmt, tempDir} from '../helpers/cli.js'

const {dir, cleanup} = tempDir('lmt-hints-')
afterAll(cleanup)

const trace = join(dir, 't.jsonl')
writeFileSync(
  trace,
  [
    {type: 'get', instance_id: 'i', timestamp_ns: 1, keys: [1, 2], input_len: 8},
    {type: 'write', instance_id: 'i', timestamp_ns: 2, keys: [1, 2]},
    {type: 'get', instance_id: 'i', timestamp_ns: 3, keys: [1, 2], input_len: 8},
    {type: 'write', instance_id: 'i', timestamp_ns: 4, keys: [1, 2]},
  ]
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
)

function config(name: string, body: Record<string, unknown>): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(body))
  return path
}

describe('simulate: hints for the usual mistakes', () => {
  it('a trace as the configuration: did you mean --trace?', async () => {
    const r = await lmt(['simulate', trace])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(`did you mean --trace ${trace}?`)
  })

  it("a configuration's missing trace: convert it first, or pass --trace", async () => {
    const c = config('missing.json', {
      trace_file_path: 'not_converted_yet.jsonl',
      output_result_path: 'out',
      instance_groups: [
        {group_name: 'g', quota_capacity_blocks: 5, instances: [{instance_id: 'i', block_size: 4}]},
      ],
    })
    const r = await lmt(['simulate', c, '-o', join(dir, 'missing-out')])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain("no such file (the configuration's trace_file_path)")
    expect(r.stderr).toContain('hint: convert the trace first: lmt convert -i <raw trace> -f <format> -o ')
    expect(r.stderr).toContain(`hint: or pass the trace: lmt simulate ${c} --trace <converted trace>`)
  })

  it('an unknown policy in a configuration lists the allowed values', async () => {
    const c = config('lfu.json', {
      trace_file_path: trace,
      output_result_path: join(dir, 'lfu-out'),
      instance_groups: [
        {
          group_name: 'g',
          quota_capacity_blocks: 5,
          instances: [{instance_id: 'i', eviction_policy_type: 'lfu'}],
        },
      ],
    })
    const r = await lmt(['simulate', c])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      'eviction_policy_type must be equal to one of the allowed values: "lru", "random_lru", "leaf_aware_lru", "ttl"',
    )
  })

  it('a single run explains local and remote under its table; a sweep prints no table', async () => {
    const single = await lmt([
      'simulate',
      '--trace',
      trace,
      '--capacity-blocks',
      '1',
      '-o',
      join(dir, 's'),
      '--no-plots',
    ])
    expect(single.exitCode, single.stderr).toBe(0)
    const lines = single.stdout.split('\n')
    const head = lines.findIndex((l) => l.startsWith('group '))
    expect(head).toBeGreaterThanOrEqual(0)
    expect(lines[head + 3]).toMatch(/^local \/ remote: /)
    const sweep = await lmt([
      'simulate',
      '--trace',
      trace,
      '--sweep',
      '--sweep-capacities',
      '1,2',
      '-o',
      join(dir, 'w'),
    ])
    expect(sweep.exitCode, sweep.stderr).toBe(0)
    expect(sweep.stdout).not.toMatch(/^group /m)
    expect(sweep.stdout).toMatch(/^capacity 1 blocks: lru token hit rate /m)
  })
})

describe('report: a raw trace given as --trace', () => {
  it('is recognised, with the -i … -f … that converts it on the fly', async () => {
    const raw = join(dir, 'raw.jsonl')
    writeFileSync(raw, '{"timestamp": 0, "input_length": 1024, "output_length": 5, "hash_ids": [1, 2]}\n')
    const r = await lmt(['report', '--trace', raw, '-o', join(dir, 'raw.html')])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain('looks like a mooncake trace')
    expect(r.stderr).toContain(`hint: lmt report -i ${raw} -f mooncake (converts it on the fly)`)
  })
})
