// The built-in `events` replay level: LMCache's cache-event batches replayed into per-compartment occupancy, with
// the stream's cuts, lost batches, dropped events and restarts. On the fixture traces (LMCache's recorder) the
// entry totals equal LMCache's trace info; a hand-made trace checks each rule.
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import {encodeHeaderBody, encodeRecordBody, frame} from '../../src/formats/lct/writer.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const CASES = join(FIXTURES, 'lmcache', 'events')
const tmp = tempDir('lmt-events-level-')
afterAll(() => tmp.cleanup())

interface Model {
  lmcache_trace_info: {entries: Record<string, number>; lifecycle: Record<string, number>}
  stream: Record<string, number>
  compartments: Array<Record<string, number | string | boolean>>
  over_time: {compartments: string[]; points: Array<{t_s: number; used_bytes: number[]; deletes: number}>}
}

async function replayModel(trace: string): Promise<Model> {
  const r = await lmt(['replay', trace, '--json'])
  expect(r.exitCode, r.stderr).toBe(0)
  return (r.result as {model: Model}).model
}

describe('events level on LMCache-recorded traces', () => {
  for (const name of readdirSync(CASES).sort())
    it(name, async () => {
      const dir = join(tmp.dir, name)
      mkdirSync(dir, {recursive: true})
      const trace = join(dir, 'trace.lct')
      writeFileSync(trace, gunzipSync(readFileSync(join(CASES, name, 'trace.lct.gz'))))
      const m = await replayModel(trace)
      const sum = (field: string) => m.compartments.reduce((a, c) => a + (c[field] as number), 0)
      expect(sum('stores')).toBe(m.lmcache_trace_info.entries.store)
      expect(sum('deletes')).toBe(m.lmcache_trace_info.entries.delete)
      expect(sum('accesses')).toBe(m.lmcache_trace_info.entries.access)
      // every compartment's final occupancy is what it stored less what it deleted, and never negative
      for (const c of m.compartments) {
        expect(c.used_bytes_final).toBeGreaterThanOrEqual(0)
        expect(c.deletes_of_unknown_objects).toBe(0)
      }
      expect(m.stream.cut_streams).toBe(m.lmcache_trace_info.lifecycle.stop === 1 ? 0 : 1)
      const last = m.over_time.points[m.over_time.points.length - 1]
      expect(last.used_bytes).toEqual(m.compartments.map((c) => c.used_bytes_final))
      expect(last.deletes).toBe(m.lmcache_trace_info.entries.delete)
    })
})

/** A trace of the given records (t_mono, qualname, args). */
function trace(name: string, records: Array<[number, string, Record<string, unknown>]>): string {
  const header = encodeHeaderBody({
    magic: Uint8Array.from([0x4c, 0x4d, 0x43, 0x54]),
    formatVersion: 1,
    level: 'events',
    traceSchemaVersion: 2,
    tMonoStart: 0,
    tWallStart: 1000,
    smConfigJson: '{}',
    smConfigDigest: 'd',
    levelMeta: {instance_id: 'n'},
  })
  const frames = [frame(header)]
  for (const [t, qualname, args] of records)
    frames.push(frame(encodeRecordBody({tMono: t, tWall: 1000 + t, qualname, args})))
  const path = join(tmp.dir, name)
  writeFileSync(path, Buffer.concat(frames))
  return path
}

const key = (h: string) => ({
  chunk_hash_hex: h,
  model_name: 'm',
  kv_rank: 0,
  object_group_id: 0,
  cache_salt: '',
})
const batch = (
  seq: number,
  inc: number,
  type: string,
  tier: string,
  backend: string,
  entries: unknown[],
  extra: Record<string, unknown> = {},
) => ({
  instance_id: 'n',
  incarnation: inc,
  seq,
  event_type: type,
  tier,
  backend,
  entries,
  shared: false,
  ts: 1000 + seq,
  capacity_bytes: 0,
  capacity_revision: 0,
  dropped_events: 0,
  ...extra,
})

describe('events level rules (hand-made trace)', () => {
  it('occupancy from stores and deletes, capacities from config, L1 accesses to the medium holding the key, seq gaps, dropped events, restarts, cuts', async () => {
    const path = trace('rules.lct', [
      [0, 'events.lifecycle', {phase: 'start', instance_id: 'n', incarnation: 1}],
      [
        1,
        'events.batch',
        batch(1, 1, 'config', 'l1', 'dram', [], {capacity_bytes: 300, capacity_revision: 1}),
      ],
      [
        1,
        'events.batch',
        batch(2, 1, 'store', 'l1', 'dram', [
          {key: key('a'), size_bytes: 100},
          {key: key('b'), size_bytes: 100},
        ]),
      ],
      [2, 'events.batch', batch(3, 1, 'store', 'l1', 'devdax', [{key: key('c'), size_bytes: 50}])],
      // seq 4 and 5 lost
      [
        3,
        'events.batch',
        batch(6, 1, 'access', 'l1', '', [{key: key('c')}, {key: key('a')}, {key: key('z')}], {
          dropped_events: 7,
        }),
      ],
      [4, 'events.batch', batch(7, 1, 'delete', 'l1', 'dram', [{key: key('a')}, {key: key('q')}])],
      [
        5,
        'events.batch',
        batch(8, 1, 'store', 'l1', 'dram', [
          {key: key('b'), size_bytes: 150},
          {key: key('d'), size_bytes: 200},
        ]),
      ],
      [6, 'events.lifecycle', {phase: 'stop', instance_id: 'n'}],
      // a restart: a new incarnation that is cut (no stop mark)
      [7, 'events.lifecycle', {phase: 'start', instance_id: 'n', incarnation: 2}],
      [8, 'events.batch', batch(1, 2, 'store', 'l2', 'fs', [{key: key('a'), size_bytes: 100}])],
    ])
    const m = await replayModel(path)
    const byId = Object.fromEntries(m.compartments.map((c) => [c.compartment, c]))
    expect(byId['l1/dram/local']).toMatchObject({
      capacity_bytes: 300,
      stores: 4,
      restores: 1,
      deletes: 2,
      deletes_of_unknown_objects: 1,
      deleted_bytes: 100,
      used_bytes_final: 350, // b (150) + d (200)
      used_bytes_peak: 350,
      accesses: 1, // a
      accesses_of_absent_objects: 0,
      batches_over_capacity: 1,
    })
    expect(byId['l1/devdax/local']).toMatchObject({accesses: 1, used_bytes_final: 50})
    // z is nowhere in L1: counted against the access batch's own compartment, as absent
    expect(byId['l1/-/local']).toMatchObject({accesses: 1, accesses_of_absent_objects: 1})
    expect(byId['l2/fs/local']).toMatchObject({stores: 1, used_bytes_final: 100, capacity_bytes: 0})
    expect(m.stream).toMatchObject({
      batches: 7,
      lost_batches: 2,
      seq_gaps: 1,
      dropped_events: 7,
      restarts: 1,
      cut_streams: 1,
      batches_after_stop: 0,
    })
  })

  it('is listed as a built-in level', async () => {
    const r = await lmt(['levels', '--json'])
    expect(JSON.stringify(r.result)).toMatch(/"events"/)
  })
})
