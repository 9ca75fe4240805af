// Block sizes inferred by the play itself give the run a pre-pass gives (outputs, notices, errors), with one read
// of the trace where the play stands: random multi-instance traces whose first rows imply the final sizes or not,
// instances that appear late, bad rows, rows out of order, contradictions.
import {existsSync, readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeEach, describe, expect, it, vi} from 'vitest'
import {isLmtError} from '../../../src/errors.js'
import {simulate} from '../../../src/simulate/run.js'
import {tempDir} from '../../helpers/cli.js'
import {maskedLines, outputFiles} from '../../helpers/run-outputs.js'

const scans = vi.hoisted(() => ({count: 0}))
vi.mock('../../../src/simulate/input/block-size-scan.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/simulate/input/block-size-scan.js')>()
  return {
    ...real,
    scanBlockSizes: (...args: Parameters<typeof real.scanBlockSizes>) => {
      scans.count++
      return real.scanBlockSizes(...args)
    },
  }
})

const tmp = tempDir('lmt-sizes-from-play-')
afterAll(() => tmp.cleanup())
beforeEach(() => {
  scans.count = 0
})

let seed = 4242
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const int = (n: number) => Math.floor(rand() * n)

interface Shape {
  rows: number
  /** each instance's block size, and the row from which it appears */
  instances: Array<{id: string; bs: number; from?: number}>
  /** rows before this one are gets of one key with input_len < 2·bs (they fit several sizes) */
  weakUntil?: number
  bad?: number
  unsorted?: number
  /** chance of a get written at twice its instance's block size */
  otherSize?: number
  /** chance of a get without keys */
  noKeys?: number
}

function traceLines(shape: Shape): string[] {
  const lines: string[] = []
  for (let i = 0; i < shape.rows; i++) {
    let ts = 1000 + i * 10
    if (rand() < (shape.unsorted ?? 0)) ts -= 25
    if (rand() < (shape.bad ?? 0)) {
      lines.push(
        rand() < 0.5 ? '{"type": "get", "instance_id": "a", ' : `{"type": "gett", "timestamp_ns": ${ts}}`,
      )
      continue
    }
    const live = shape.instances.filter((x) => (x.from ?? 0) <= i)
    const inst = live[int(live.length)]
    const weak = i < (shape.weakUntil ?? 0)
    const n = weak ? 1 : rand() < (shape.noKeys ?? 0) ? 0 : 1 + int(30)
    const keys = Array.from({length: n}, (_, k) => String(int(400) * 7919 + k))
    if (!weak && rand() < 0.45) {
      lines.push(
        `{"type": "write", "instance_id": "${inst.id}", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}]}`,
      )
      continue
    }
    const bs = rand() < (shape.otherSize ?? 0) ? 2 * inst.bs : inst.bs
    // a weak row fits every size in (L/2, L]: its choice is a power of two, not the instance's size
    const inputLen = weak ? inst.bs + int(Math.min(inst.bs, 20)) : n * bs + int(bs)
    lines.push(
      `{"type": "get", "instance_id": "${inst.id}", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}], "input_len": ${inputLen}}`,
    )
  }
  return lines
}

let files = 0
function writeTrace(lines: string[]): string {
  const path = join(tmp.dir, `t${files++}.jsonl`)
  writeFileSync(path, lines.join('\n') + '\n')
  return path
}

const errorFacts = (err: unknown) =>
  isLmtError(err)
    ? {kind: err.kind, message: err.message, exitCode: err.exitCode, suggestions: err.suggestions}
    : {message: String(err)}

interface RunOptions {
  prePass: boolean
  /** a configuration file instead of the quick form */
  config?: (out: string) => string
  skipInvalid?: boolean
  blockSizeCheck?: boolean
  policy?: 'lru' | 'random_lru'
}

/** Everything a run leaves (files, notices, lines; timings masked) and the trace scans it made. */
async function runOutputs(trace: string, opts: RunOptions): Promise<{run: unknown; scans: number}> {
  const out = join(tmp.dir, `out-${files++}`)
  scans.count = 0
  try {
    const r = await simulate({
      configPath: opts.config?.(out),
      flags: opts.config ? {} : {trace, outputDir: out, capacityBlocks: 200, policy: opts.policy},
      seed: 42n,
      skipInvalid: opts.skipInvalid ?? false,
      strictInstances: false,
      plots: true,
      oracle: 'none',
      keepPointCsv: false,
      blockSizeCheck: opts.blockSizeCheck,
      version: 'test',
      sizesByPrePass: opts.prePass,
    })
    const files = outputFiles(out)
    const lines = maskedLines(r.lines)
    return {run: {files, notices: r.notices, lines}, scans: scans.count}
  } catch (err) {
    return {
      run: {error: errorFacts(err), left: existsSync(out) ? readdirSync(out) : null},
      scans: scans.count,
    }
  }
}

const three = [
  {id: 'a', bs: 16},
  {id: 'b', bs: 100},
  {id: 'c', bs: 512},
]

describe('block sizes inferred in the play', () => {
  it.each([
    ['three instances, sizes clear from the first rows', {rows: 3000, instances: three}, {}, 0],
    ['first rows fit other sizes: played again', {rows: 3000, instances: three, weakUntil: 300}, {}, 0],
    [
      'an instance that appears late, and gets without keys',
      {rows: 3000, instances: [...three, {id: 'late', bs: 64, from: 2000}], noKeys: 0.05},
      {policy: 'random_lru'},
      0,
    ],
    ['bad rows skipped', {rows: 3000, instances: three, bad: 0.02}, {skipInvalid: true}, 0],
    ['a bad row', {rows: 3000, instances: three, bad: 0.001}, {}, 1],
    ['rows out of order (re-read and sorted)', {rows: 3000, instances: three, unsorted: 0.01}, {}, 1],
    ['rows that fit no single size', {rows: 3000, instances: three, otherSize: 0.002}, {}, 1],
    [
      'rows that fit no single size, the check off',
      {rows: 3000, instances: three, otherSize: 0.002},
      {blockSizeCheck: false},
      'any',
    ],
  ] as const)('%s', async (name, shape, opts, scansInPlay) => {
    const trace = writeTrace(traceLines(shape as Shape))
    const byPrePass = await runOutputs(trace, {...opts, prePass: true})
    const inPlay = await runOutputs(trace, {...opts, prePass: false})
    expect(byPrePass.scans).toBe(1)
    expect(inPlay.run).toEqual(byPrePass.run)
    if (scansInPlay !== 'any') expect(inPlay.scans).toBe(scansInPlay)
    // the fallbacks are met: the error cases end in an error
    expect('error' in (byPrePass.run as object)).toBe(
      name.startsWith('a bad row') || name.startsWith('rows that fit no'),
    )
  })

  it('a configuration with given and missing block sizes, capacity in GB (weights by block size)', async () => {
    const trace = writeTrace(
      traceLines({rows: 3000, instances: [...three, {id: 'late', bs: 64, from: 1500}], weakUntil: 200}),
    )
    const config = (given: number) => (out: string) => {
      const path = join(tmp.dir, `cfg-${files++}.json`)
      const inst = (id: string, bs?: number) => ({
        instance_id: id,
        eviction_policy_type: 'lru',
        bytes_per_token: 1024,
        ...(bs === undefined ? {} : {block_size: bs}),
      })
      const instances = [inst('a', given), inst('b'), inst('c'), inst('late')]
      const group = {group_name: 'g', quota_capacity: 0.05, instances}
      writeFileSync(
        path,
        JSON.stringify({trace_file_path: trace, output_result_path: out, instance_groups: [group]}),
      )
      return path
    }
    for (const [given, scansInPlay] of [
      [16, 0],
      [32, 1],
    ] as const) {
      const byPrePass = await runOutputs(trace, {prePass: true, config: config(given)})
      const inPlay = await runOutputs(trace, {prePass: false, config: config(given)})
      expect(inPlay.run).toEqual(byPrePass.run)
      expect([byPrePass.scans, inPlay.scans]).toEqual([1, scansInPlay])
      expect('error' in (inPlay.run as object)).toBe(given === 32)
    }
  })

  it('the inferred sizes are the instances’ own, also after first rows that fit others', async () => {
    const trace = writeTrace(traceLines({rows: 2000, instances: three, weakUntil: 300}))
    const {run} = await runOutputs(trace, {prePass: false})
    const summary = JSON.parse((run as {files: Record<string, string>}).files['summary.json'])
    const sizes = Object.fromEntries(
      summary.instances.map((i: {instance_id: string; block_size: number; block_size_source: string}) => [
        i.instance_id,
        [i.block_size, i.block_size_source],
      ]),
    )
    expect(sizes).toEqual({a: [16, 'inferred'], b: [100, 'inferred'], c: [512, 'inferred']})
  })
})
