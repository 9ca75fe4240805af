import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stackPass} from '../../../src/simulate/oracles/stack-pass.js'
import {KeyInterner, type TraceRow} from '../../../src/simulate/input/trace-rows.js'
import {newStats, readTraceRowBatches} from '../../../src/simulate/input/trace-source.js'
import type {SimConfig} from '../../../src/simulate/config/config.js'
import {convertSampleMooncake, lmt, tempDir} from '../../helpers/cli.js'
import {itSlow} from '../../helpers/slow.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

/** Get/write units as the converters write them: each get is followed by the write of its keys plus `extra`. */
function unitTrace(units: Array<{keys: number[]; extra?: number[]; mask?: unknown}>, instance = 'i'): string {
  const lines: string[] = []
  units.forEach((u, t) => {
    const get: Record<string, unknown> = {
      type: 'get',
      instance_id: instance,
      timestamp_ns: 2 * t,
      keys: u.keys,
      input_len: 4 * u.keys.length + 3, // full blocks and a partial tail, as a converter writes them
    }
    if (u.mask !== undefined) get.block_mask = u.mask
    lines.push(JSON.stringify(get))
    lines.push(
      JSON.stringify({
        type: 'write',
        instance_id: instance,
        timestamp_ns: 2 * t + 1,
        keys: [...u.keys, ...(u.extra ?? [])],
      }),
    )
  })
  return lines.join('\n') + '\n'
}

/** A listed-capacity sweep without oracles; its summary (the --json output) and sweep.csv lines. */
async function sweep(trace: string, caps: string, extra: string[] = []) {
  const r = await sweepText(trace, caps, ['--json', ...extra])
  return {summary: JSON.parse(r.stdout), csv: r.csv}
}

/** The same sweep printing its terminal text. */
async function sweepText(trace: string, caps: string, extra: string[] = []) {
  const out = join(tmp.dir, `s${Math.random().toString(36).slice(2)}`)
  const r = await lmt(
    ['simulate', '--trace', trace, '--block-size', '4', '--sweep', '--sweep-capacities', caps].concat([
      '--oracle',
      'none',
      '--no-plots',
      '-o',
      out,
      ...extra,
    ]),
  )
  expect(r.exitCode, r.stdout + r.stderr).toBe(0)
  return {stdout: r.stdout, csv: readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n')}
}

/** sweep.csv without its method column */
const numbers = (csv: string[]) => csv.map((l) => l.split(',').slice(0, -1).join(','))

describe('one-pass stack method (docs/simulate.md §6.6, T8)', () => {
  itSlow('equals independent replays at every point it takes, on random unit-shaped traces', async () => {
    let seed = 12345
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
    let taken = 0
    let replayed = 0
    for (let t = 0; t < 12; t++) {
      const units = Array.from({length: 40 + rand(40)}, () => {
        const keys = Array.from({length: rand(5)}, () => rand(4))
        const extra = rand(3) === 0 ? Array.from({length: 1 + rand(2)}, () => rand(6)) : []
        const mask =
          rand(3) === 0 ? rand(keys.length + 1) : rand(3) === 0 ? keys.map(() => rand(2) === 0) : undefined
        return {keys, extra, mask}
      })
      const trace = join(tmp.dir, `units${t}.jsonl`)
      writeFileSync(trace, unitTrace(units))
      const caps = '1,2,3,4,5,6,8,10,13,17,22,30,40,60'
      const auto = await sweep(trace, caps)
      const off = await sweep(trace, caps, ['--stack', 'off'])
      expect(numbers(auto.csv)).toEqual(numbers(off.csv))
      expect(off.summary.sweep.stack).toMatchObject({certified_points: 0, reason: '--stack off'})
      expect(auto.summary.sweep.stack.eligible).toBe(true)
      taken += auto.summary.sweep.stack.certified_points
      replayed += auto.summary.sweep.stack.replayed_points
      const methods = auto.summary.sweep.points.map((p: {method: string}) => p.method)
      expect(methods.filter((m: string) => m === 'stack')).toHaveLength(
        auto.summary.sweep.stack.certified_points,
      )
      expect(methods.at(-1)).toBe('replay') // the largest point is replayed: the summary describes it
    }
    // both paths were exercised
    expect(taken).toBeGreaterThan(15)
    expect(replayed).toBeGreaterThan(12)
  })

  it('in request mode: used when every scheduled write comes right after its request, equal to replays', async () => {
    let seed = 777
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
    const lines: string[] = []
    for (let t = 0; t < 120; t++) {
      const keys = Array.from({length: rand(5)}, () => rand(4))
      lines.push(
        JSON.stringify({
          type: 'request',
          instance_id: 'i',
          timestamp_ns: 10 * t,
          keys,
          input_len: 4 * keys.length + 3,
        }),
      )
    }
    const trace = join(tmp.dir, 'requests.jsonl')
    writeFileSync(trace, lines.join('\n') + '\n')
    const caps = '1,2,3,5,8,13,21'
    // a write due 5 ns later comes before the next request (10 ns later): every request is a unit
    const near = await sweep(trace, caps, ['--write-delay-ns', '5'])
    expect(near.summary.sweep.stack.eligible).toBe(true)
    expect(near.summary.sweep.stack.certified_points).toBeGreaterThan(0)
    expect(numbers(near.csv)).toEqual(
      numbers((await sweep(trace, caps, ['--write-delay-ns', '5', '--stack', 'off'])).csv),
    )
    // due 15 ns later, the next request comes first: not units
    const far = await sweep(trace, caps, ['--write-delay-ns', '15'])
    expect(far.summary.sweep.stack).toMatchObject({eligible: false, certified_points: 0})
    expect(far.summary.sweep.stack.reason).toMatch(
      /^gets and writes do not pair up in the trace \(line \d+: a get not followed by its write\)$/,
    )
  })

  it('the counterexample of §6.6 (capacity 2 hits more than 3) is not taken from the stack where it deviates', async () => {
    const trace = join(tmp.dir, 'counter.jsonl')
    writeFileSync(trace, unitTrace([{keys: [1]}, {keys: [1, 2, 3, 4]}, {keys: [1, 2]}, {keys: [1, 2]}]))
    const auto = await sweep(trace, '1,2,3,4,5')
    const off = await sweep(trace, '1,2,3,4,5', ['--stack', 'off'])
    expect(numbers(auto.csv)).toEqual(numbers(off.csv))
    const hits = (csv: string[], cap: string) =>
      Number(csv.find((l) => l.startsWith(`lru,${cap},`) && l.includes(',*,'))?.split(',')[7])
    expect([hits(auto.csv, '2'), hits(auto.csv, '3')]).toEqual([3, 2])
    // the terminal says which points came from the pass
    const text = async (stack: string) => (await sweepText(trace, '1,2,3,4,5', ['--stack', stack])).stdout
    const taken = auto.summary.sweep.stack.certified_points
    const shown = await text('auto')
    expect(shown).toContain(`one-pass stack method: ${taken} of 5 points taken from it, the others replayed`)
    expect(shown.match(/\(stack pass\)/g) ?? []).toHaveLength(taken)
    expect(await text('off')).toContain('one-pass stack method not used (--stack off): every point replayed')
  })

  it("with the default references, each point's line also gives the Belady reference", async () => {
    const trace = join(tmp.dir, 'belady-lines.jsonl')
    writeFileSync(trace, unitTrace([{keys: [1]}, {keys: [1, 2, 3, 4]}, {keys: [1, 2]}, {keys: [1, 2]}]))
    const out = join(tmp.dir, 'with-belady')
    const r = await lmt([
      'simulate',
      '--trace',
      trace,
      '--block-size',
      '4',
      '--sweep',
      '--sweep-capacities',
      '1,2,3,4,5',
      '--no-plots',
      '-o',
      out,
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('capacity '))
    expect(lines).toHaveLength(5)
    const belady = readFileSync(join(out, 'sweep.csv'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('belady,') && l.includes(',*,'))
      .map((l) => l.split(',')[10])
    lines.forEach((l, i) =>
      expect(l).toMatch(
        new RegExp(
          `^capacity ${i + 1} blocks: lru token hit rate \\S+( \\(stack pass\\))?, Belady ${belady[i]}$`,
        ),
      ),
    )
  })

  it('is not used, with the reason, where a rule of eligibility fails', async () => {
    const units = [{keys: [1, 2]}, {keys: [1, 2, 3]}]
    const two = join(tmp.dir, 'two.jsonl')
    writeFileSync(two, unitTrace(units, 'a') + unitTrace(units, 'b'))
    expect((await sweep(two, '1,2,3')).summary.sweep.stack.reason).toBe(
      'the swept group has 2 instances; the method needs exactly one',
    )
    const one = join(tmp.dir, 'one.jsonl')
    writeFileSync(one, unitTrace(units))
    expect((await sweep(one, '1,2,3', ['--policy', 'leaf_aware_lru'])).summary.sweep.stack.reason).toBe(
      'policy leaf_aware_lru; the method needs lru, or ttl falling back to LRU',
    )
    expect(
      (await sweep(one, '1,2,3', ['--eviction-mode', '1', '--batch-size', '2'])).summary.sweep.stack.reason,
    ).toBe('eviction_mode 1 with batch 2 does not evict exactly; the method needs mode 3 or batch 1')
    const lonely = join(tmp.dir, 'lonely.jsonl')
    writeFileSync(
      lonely,
      unitTrace(units) +
        '{"type": "get", "instance_id": "i", "timestamp_ns": 9, "keys": [1], "input_len": 7}\n',
    )
    expect((await sweep(lonely, '1,2,3')).summary.sweep.stack.reason).toBe(
      'gets and writes do not pair up in the trace (line 5: a get not followed by its write)',
    )
    expect((await sweep(one, '1,2,3', ['--keep-point-csv'])).summary.sweep.stack.reason).toMatch(
      /keep-point-csv/,
    )
  })
})

describe('one-pass stack method on the Mooncake conversation trace (block size 512)', () => {
  let trace = ''
  beforeAll(async () => {
    trace = join(tmp.dir, 'conv512.jsonl')
    await convertSampleMooncake(trace)
  })

  it('certifies 13 of the 30 default points, and the sweep equals replaying every point', async () => {
    const run = async (stack: string) => {
      const out = join(tmp.dir, `mc-${stack}`)
      const r = await lmt([
        'simulate',
        '--trace',
        trace,
        '--block-size',
        '512',
        '--sweep',
        '--oracle',
        'none',
        '--no-plots',
        '--stack',
        stack,
        '-o',
        out,
        '--json',
      ])
      expect(r.exitCode, r.stderr).toBe(0)
      return {
        summary: JSON.parse(r.stdout),
        csv: readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n'),
      }
    }
    const auto = await run('auto')
    const off = await run('off')
    expect(numbers(auto.csv)).toEqual(numbers(off.csv))
    // the largest point is certified too, but replayed for the summary
    expect(auto.summary.sweep.stack).toEqual({
      eligible: true,
      reason: null,
      certified_points: 12,
      replayed_points: 18,
    })

    const rows: TraceRow[] = []
    for await (const batch of readTraceRowBatches(
      {path: trace, name: 'conv', skipInvalid: false, mode: 'read_write', keys: new KeyInterner()},
      newStats(trace),
    ))
      rows.push(...batch)
    const config = auto.summary.config as SimConfig
    const caps = auto.summary.sweep.points.map((p: {capacity_blocks: number}) => ({
      blocks: p.capacity_blocks,
    }))
    const pass = stackPass(rows, config, 'default', caps)
    expect(pass.certified.filter((c) => c !== undefined)).toHaveLength(13)
  })
})
