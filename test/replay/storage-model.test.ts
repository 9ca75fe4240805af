import {readFileSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, tempDir} from '../helpers/cli.js'
import {Allocator} from '../../src/replay/storage/allocator.js'
import {fsum, percentile, ReplayStats} from '../../src/replay/stats.js'
import {TtlLock} from '../../src/replay/storage/ttl-lock.js'
import {JsonFloat} from '../../src/formats/json/json-float.js'
import {fixtureFlags, join, key, keys, LAYOUT, obs, type Rec, replay, writeTrace} from './helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let n = 0
const path = () => join(tmp.dir, `t${n++}.lct`)

describe('fixture cycle (§11.1)', () => {
  it('v2_full_prefetch_cycle: 6 OK, 3 objects, 12288 bytes, no locks, digest match', async () => {
    const r = await replay(join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct'), fixtureFlags)
    expect([r.recordsReplayed, r.recordsSkipped, r.recordsFailed]).toEqual([6, 0, 0])
    expect(r.traceTimeS).toBe(0.2)
    const o = obs(r)
    expect(o.l1).toMatchObject({
      objects_final: 3,
      used_bytes_final: 12288,
      used_bytes_peak: 12288,
      read_locked_final: 0,
      write_locked_final: 0,
      prefix_hit_keys: 3,
      prefix_miss_keys: 0,
    })
    expect(r.replayConfigDigest).toBe(r.headerDigest)
    expect(r.headerDigest.startsWith('6bddebcb')).toBe(true)
  })

  it('v2_truncated_tail: 5 OK, 3 read locks held at the end', async () => {
    const r = await replay(join(FIXTURES, 'lct', 'v2_truncated_tail.lct'), fixtureFlags)
    expect(r.recordsReplayed).toBe(5)
    expect(obs(r).l1.read_locked_final).toBe(3)
    expect(obs(r).l1.ttl_expired_read_locks).toBe(0)
  })

  it('v2_all_codec_shapes: one record skipped for lack of a handler', async () => {
    const r = await replay(join(FIXTURES, 'lct', 'v2_all_codec_shapes.lct'), fixtureFlags)
    expect([r.recordsReplayed, r.recordsSkipped]).toEqual([0, 1])
    expect(r.skippedByReason.no_handler).toEqual({'pkg.mod.all_codecs': 1})
  })
})

describe('eviction (§11.2)', () => {
  const trace = () =>
    writeTrace(path(), [
      [0.1, 'reserve_write', {keys: keys(0, 1, 2, 3), layout_desc: LAYOUT, mode: 'new'}],
      [0.2, 'finish_write', {keys: keys(0, 1, 2, 3)}],
      [1.5, 'reserve_write', {keys: keys(4, 5), layout_desc: LAYOUT, mode: 'new'}],
      [1.6, 'finish_write', {keys: keys(4, 5)}],
      [
        2.5,
        'submit_prefetch_task',
        {keys: keys(0, 1, 2), layout_desc: LAYOUT, extra_count: 0, external_request_id: 'r'},
      ],
      [3.5, 'finish_read_prefetched', {keys: keys(0, 1), extra_count: 0}],
    ])
  const flags = {'l1-size-gb': '1.9073486328125e-05', 'eviction-policy': 'LRU'}

  it('ticks at 1, 2, 3 s delete by LRU, refuse locked keys', async () => {
    const r = await replay(trace(), flags)
    const o = obs(r)
    expect(o.eviction).toMatchObject({
      evicted_keys: 2,
      evicted_bytes: 8192,
      refused_locked_keys: 1,
      ticks: 3,
      triggered_ticks: 3,
    })
    expect(o.l1).toMatchObject({
      used_bytes_final: 16384,
      used_bytes_peak: 20480,
      used_bytes_peak_at_s: new JsonFloat(1.5),
      prefix_hit_keys: 2,
      prefix_miss_keys: 1,
    })
    expect(r.recordsFailed).toBe(0)
  })

  it('forward LRU order evicts k0 first and the prefetch then misses', async () => {
    const r = await replay(trace(), {...flags, 'model-lru-order': 'forward'})
    expect(obs(r).l1.prefix_hit_keys).toBe(0)
  })
})

describe('TTL and --model-write-pending (§11.3)', () => {
  const trace = () =>
    writeTrace(path(), [
      [0, 'reserve_write', {keys: keys(0), layout_desc: LAYOUT, mode: 'new'}],
      [2, 'finish_write', {keys: keys(0)}],
      [3, 'submit_prefetch_task', {keys: keys(0), layout_desc: LAYOUT}],
    ])
  const flags = {'l1-size-gb': '0.0625', 'eviction-policy': 'noop', 'l1-write-ttl-seconds': 1}

  it('an expired write lock: finish_write is in the wrong state, the object is readable (design era)', async () => {
    const r = await replay(trace(), flags)
    const o = obs(r)
    expect(o.l1.ttl_expired_write_locks).toBe(1)
    expect(o.l1.errors.finish_write).toEqual({KEY_IN_WRONG_STATE: 1})
    expect(o.l1.prefix_hit_keys).toBe(1)
  })

  it('with --model-write-pending the never-written object stays unreadable', async () => {
    const r = await replay(trace(), {...flags, 'model-write-pending': true})
    expect(obs(r).l1.prefix_hit_keys).toBe(0)
    expect(obs(r).l1.errors.reserve_read).toEqual({KEY_NOT_READABLE: 1})
  })
})

describe('mock L2 (§11.4)', () => {
  it('stores, evicts from L1, prefetches back from L2', async () => {
    const p = writeTrace(path(), [
      [0.1, 'reserve_write', {keys: keys(0, 1), layout_desc: LAYOUT, mode: 'new'}],
      [0.2, 'finish_write', {keys: keys(0, 1)}],
      [2.5, 'submit_prefetch_task', {keys: keys(0, 1), layout_desc: LAYOUT}],
      [2.6, 'read_prefetched_results.__enter__', {keys: keys(0, 1)}],
      [2.7, 'read_prefetched_results.__exit__', {keys: keys(0, 1)}],
      [2.8, 'finish_read_prefetched', {keys: keys(0, 1)}],
    ])
    const r = await replay(p, {
      'l1-size-gb': '7.62939453125e-06',
      'eviction-policy': 'LRU',
      'l2-adapter': ['{"type": "mock", "max_size_gb": 1, "mock_bandwidth_gb": 4.76837158203125e-04}'],
    })
    const o = obs(r)
    expect(r.recordsFailed).toBe(0)
    expect(o.l1).toMatchObject({
      objects_final: 1,
      used_bytes_final: 4096,
      used_bytes_peak: 8192,
      prefix_hit_keys: 1,
      prefix_miss_keys: 1,
    })
    expect(o.l2[0]).toMatchObject({
      stored_keys: 2,
      stored_bytes: 1024,
      loaded_keys: 1,
      loaded_bytes: 512,
      lookup_keys: 1,
      lookup_hits: 1,
    })
    expect(o.eviction.evicted_keys).toBe(1)
    expect(o.prefetch).toMatchObject({requests: 1, l2_prefix_hit_keys: 1, loaded_keys: 1, failed_keys: 0})
  })
})

describe('round trip (§9)', () => {
  it.each(['v2_full_prefetch_cycle', 'v2_truncated_tail'])(
    '%s re-records byte-identical record frames',
    async (name) => {
      const input = join(FIXTURES, 'lct', `${name}.lct`)
      const out = path()
      const first = await replay(input, fixtureFlags, {recordPath: out})
      const a = readFileSync(input)
      const b = readFileSync(out)
      const ha = a.readUInt32BE(0) + 4
      const hb = b.readUInt32BE(0) + 4
      let end = ha
      while (end + 4 <= a.length && end + 4 + a.readUInt32BE(end) <= a.length) end += 4 + a.readUInt32BE(end)
      expect(b.subarray(hb).equals(a.subarray(ha, end))).toBe(true)
      const second = await replay(out, fixtureFlags)
      expect(second.snapshot?.digest).toBe(first.snapshot?.digest)
    },
  )

  it('a generated workload with eviction and L2: record → replay gives the same state and observations', async () => {
    const recs: Array<[number, string, Record<string, unknown>]> = []
    let t = 0
    for (let c = 0; c < 400; c++) {
      const ks = keys(3 * c, 3 * c + 1, 3 * c + 2)
      const step = () => (t += 0.004)
      recs.push([step(), 'reserve_write', {keys: ks, layout_desc: LAYOUT, mode: 'new'}])
      recs.push([step(), 'finish_write', {keys: ks}])
      const prev = c > 5 ? keys(3 * (c - 5), 3 * (c - 5) + 1) : ks
      recs.push([
        step(),
        'submit_prefetch_task',
        {keys: prev, layout_desc: LAYOUT, extra_count: 0, external_request_id: `req-${c}`},
      ])
      recs.push([step(), 'read_prefetched_results.__enter__', {keys: prev}])
      recs.push([step(), 'read_prefetched_results.__exit__', {keys: prev}])
      recs.push([step(), 'finish_read_prefetched', {keys: prev, read_locks: 1}])
    }
    const input = writeTrace(path(), recs)
    const flags = {
      'l1-size-gb': '0.00030517578125',
      'eviction-policy': 'LRU',
      'l2-adapter': ['{"type": "mock", "max_size_gb": 0.0001, "mock_bandwidth_gb": 0.001}'],
    }
    const out = path()
    const first = await replay(input, flags, {recordPath: out})
    const second = await replay(out, flags)
    expect(second.snapshot?.digest).toBe(first.snapshot?.digest)
    const strip = (o: Record<string, unknown>) => ({
      ...o,
      read_contexts: {...(o.read_contexts as object), unmatched_exits: 0, closed_by_final_sweep: 0},
    })
    expect(strip(obs(second) as never)).toEqual(strip(obs(first) as never))
    expect(obs(first).eviction.evicted_keys).toBeGreaterThan(0)
    expect(obs(first).l2[0].stored_keys).toBeGreaterThan(0)
  })

  it('two virtual replays are identical except wall times', async () => {
    const p = join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct')
    const a = await replay(p, fixtureFlags)
    const b = await replay(p, fixtureFlags)
    expect(b.observations).toEqual(a.observations)
    expect(b.snapshot).toEqual(a.snapshot)
  })
})

describe('adapters and read contexts', () => {
  it('accepts every generation and fails bad arguments without changing state', async () => {
    const p = writeTrace(path(), [
      [0.1, 'reserve_write', {keys: keys(0, 1), layout_desc: LAYOUT}],
      [0.2, 'finish_write', {keys: keys(0, 1)}],
      [0.3, 'submit_prefetch_task', {keys: keys(0, 1), layout_desc: LAYOUT, extra_count: 1}],
      [0.4, 'finish_read_prefetched', {keys: keys(0, 1), read_locks: 2}],
      [0.5, 'finish_write', {keys: keys(0), bogus: 1}],
      [0.6, 'finish_read_prefetched', {keys: keys(0), extra_count: 0, read_locks: 1}],
      [0.7, 'reserve_write', {keys: ['not a key'], layout_desc: LAYOUT, mode: 'new'}],
      [0.8, 'reserve_write_with_status', {keys: keys(9)}],
      [0.9, 'read_prefetched_results.__exit__', {keys: keys(5)}],
      [1.0, 'abort_write', {keys: keys(7)}],
    ])
    const r = await replay(p, fixtureFlags)
    expect([r.recordsReplayed, r.recordsFailed, r.recordsSkipped]).toEqual([6, 3, 1])
    expect(r.warnings.some((w) => w.includes("finish_write() got an unexpected argument 'bogus'"))).toBe(true)
    expect(r.warnings.some((w) => w.includes("got both 'extra_count' and 'read_locks'"))).toBe(true)
    expect(r.warnings.some((w) => w.includes("argument 'keys' must be a list of ObjectKey"))).toBe(true)
    expect(obs(r).read_contexts.unmatched_exits).toBe(1)
    expect(obs(r).l1.read_locked_final).toBe(0)
  })

  it('pairs overlapping contexts FIFO and closes open ones in the final sweep', async () => {
    const p = writeTrace(path(), [
      [0.1, 'reserve_write', {keys: keys(0), layout_desc: LAYOUT, mode: 'new'}],
      [0.2, 'finish_write', {keys: keys(0)}],
      [0.3, 'read_prefetched_results.__enter__', {keys: keys(0)}],
      [0.4, 'read_prefetched_results.__enter__', {keys: keys(0)}],
      [0.5, 'read_prefetched_results.__exit__', {keys: keys(0)}],
    ])
    const r = await replay(p, fixtureFlags)
    expect(obs(r).read_contexts).toMatchObject({
      entered: 2,
      exited: 2,
      not_ready: 2,
      closed_by_final_sweep: 1,
    })
  })
})

describe('building blocks', () => {
  it('allocator: first fit, carving, coalescing, all or nothing', () => {
    const a = new Allocator(5 * 4096)
    const b1 = a.allocateBatch(3, 4096) as Array<{offset: number; size: number}>
    expect(b1.map((b) => b.offset)).toEqual([0, 4096, 8192])
    a.release(b1[1])
    expect(a.allocateBatch(4, 4096)).toBeUndefined()
    expect(a.free).toEqual([
      {offset: 4096, size: 4096},
      {offset: 12288, size: 8192},
    ])
    a.release(b1[0])
    a.release(b1[2])
    expect(a.free).toEqual([{offset: 0, size: 20480}])
    expect(a.capacityFor(8192)).toBe(2)
  })

  it('allocator: blocks too small are skipped, used-up ones leave the list wherever they are', () => {
    // free: 1 unit at 0, 2 at 2, 1 at 5, 4 at 7 (units of 1024 bytes); objects of 2 units
    const a = new Allocator(11 * 1024)
    const all = a.allocateBatch(11, 1024) as Array<{offset: number; size: number}>
    for (const i of [0, 2, 3, 5, 7, 8, 9, 10]) a.release(all[i])
    expect(a.free.map((b) => [b.offset / 1024, b.size / 1024])).toEqual([
      [0, 1],
      [2, 2],
      [5, 1],
      [7, 4],
    ])
    expect(a.allocateBatch(4, 2048)).toBeUndefined() // 8 units free, but only 3 objects fit
    const got = a.allocateBatch(3, 2048) as Array<{offset: number; size: number}>
    expect(got.map((b) => b.offset / 1024)).toEqual([2, 7, 9])
    expect(a.free.map((b) => [b.offset / 1024, b.size / 1024])).toEqual([
      [0, 1],
      [5, 1],
    ])
    expect(a.used).toBe(9 * 1024)
    // and from the front: a used-up first block
    a.release(got[0])
    expect(a.allocateBatch(1, 2048)?.[0].offset).toBe(2048)
    expect(a.free.map((b) => [b.offset / 1024, b.size / 1024])).toEqual([
      [0, 1],
      [5, 1],
    ])
  })

  it('TTL lock: refresh, unlock after expiry, expiry', () => {
    const l = new TtlLock(10)
    l.lock(0)
    l.lock(5)
    expect([l.count, l.expiry]).toEqual([2, 15])
    expect(l.isLocked(14.9)).toBe(true)
    expect(l.isLocked(15)).toBe(false)
    expect(l.expire(15)).toBe(true)
    expect(l.expire(16)).toBe(false)
    l.unlock(20)
    expect(l.count).toBe(0)
  })

  it('percentiles (nearest rank), fsum, histogram switch', () => {
    const v = Float64Array.from({length: 100}, (_, i) => i + 1)
    expect([
      percentile(v, 50),
      percentile(v, 90),
      percentile(v, 99),
      percentile(v, 0),
      percentile(v, 100),
    ]).toEqual([50, 90, 99, 1, 100])
    expect(
      percentile(
        Float64Array.from({length: 10}, (_, i) => i + 1),
        90,
      ),
    ).toBe(9)
    expect(percentile(new Float64Array(0), 50)).toBe(0)
    expect(fsum(Array(10).fill(0.1))).toBe(1)
    const s = new ReplayStats()
    s.sample('a', 1)
    s.error('b')
    expect(s.summary().map(([q, x]) => [q, x.count, x.errors, x.mean_ms])).toEqual([
      ['a', 1, 0, 1],
      ['b', 0, 1, 0],
    ])
  })

  it('keys with different salts are different objects', async () => {
    const p = writeTrace(path(), [
      [0.1, 'reserve_write', {keys: [key(0, 'a')], layout_desc: LAYOUT, mode: 'new'}],
      [0.2, 'reserve_write', {keys: [key(0, 'b')], layout_desc: LAYOUT, mode: 'new'}],
    ])
    const r = await replay(p, fixtureFlags)
    expect(obs(r).l1.objects_final).toBe(2)
  })
})

describe('a key given twice in one call (LMCache answers with a dict by key)', () => {
  const trace = () =>
    writeTrace(path(), [
      // both positions allocate: the second allocation replaces the first, which is never freed
      [0.1, 'reserve_write', {keys: keys(7, 7), layout_desc: LAYOUT, mode: 'new'}],
      // the first position finishes the write, the second then finds the key in the wrong state
      [0.2, 'finish_write', {keys: keys(7, 7)}],
      // 7 is writable once, then write-locked: its last outcome (not writable) is its answer at both positions
      [0.3, 'reserve_write', {keys: keys(7, 8, 7), layout_desc: LAYOUT, mode: 'all'}],
    ])

  it('counts errors once per key, with the last outcome, and keeps the leaked first allocation', async () => {
    const o = obs(await replay(trace(), fixtureFlags))
    expect(o.l1).toMatchObject({
      leaked_duplicate_bytes: 4096,
      used_bytes_final: 3 * 4096,
      objects_final: 2,
      reserve_write_calls: 2,
      reserve_write_keys: 5,
      reserved_keys: 3,
      not_writable_keys: 2,
    })
    expect(o.l1.errors).toEqual({
      finish_write: {KEY_IN_WRONG_STATE: 1},
      reserve_write: {KEY_NOT_WRITABLE: 1},
    })
  })
})

describe('idle eviction ticks (§4.3)', () => {
  it('the scheduler skips idle firings to the next event or record and counts them as if they had run', async () => {
    const {EventScheduler} = await import('../../src/replay/scheduler.js')
    const s = new EventScheduler()
    const log: string[] = []
    let fired = 0
    let counted = 0
    s.every(1, 1, 'tick', () => {
      fired++
      log.push(`tick ${s.now()}`)
      return (skipped: number) => (counted += skipped)
    })
    s.at(2.5, 'a', () => log.push('a 2.5'))
    s.at(7, 'b', () => log.push('b 7'))
    s.runUpTo(10)
    // each idle firing moves to the first second at or after the next event (2.5 → 3, 7 → 7, after it: FIFO by
    // arming) or the record (10); the others are counted, not run
    expect(log).toEqual(['tick 1', 'a 2.5', 'tick 3', 'b 7', 'tick 7', 'tick 10'])
    expect(fired + counted).toBe(10)
  })

  const gap = (flags: Record<string, unknown>, recs: Rec[]) => replay(writeTrace(path(), recs), flags)

  it('below the watermark: a gap of 10,000 s counts 10,000 ticks, none triggered', async () => {
    const r = await gap(fixtureFlags, [
      [0.5, 'reserve_write', {keys: keys(1), layout_desc: LAYOUT, mode: 'new'}],
      [0.6, 'finish_write', {keys: keys(1)}],
      [10000.5, 'finish_write', {keys: keys(1)}],
    ])
    expect(obs(r).eviction).toMatchObject({ticks: 10000, triggered_ticks: 0, evicted_keys: 0})
  })

  it('above the watermark with nothing the policy may evict: every tick triggered, nothing evicted', async () => {
    // one 4 KiB object fills the L1; its write never finishes, so the LRU does not know it
    const r = await gap({'l1-size-gb': String(4096 / 2 ** 30), 'eviction-policy': 'LRU'}, [
      [0.5, 'reserve_write', {keys: keys(1), layout_desc: LAYOUT, mode: 'new'}],
      [10000.5, 'finish_write', {keys: keys(1)}],
    ])
    expect(obs(r).eviction).toMatchObject({ticks: 10000, triggered_ticks: 10000, evicted_keys: 0})
    expect(obs(r).l1.ttl_expired_write_locks).toBe(1) // found expired by the finish_write at 10000.5
  })

  it('a corrupt t_mono far in the future (1e300 s) is reached, not ticked to', async () => {
    const r = await gap(fixtureFlags, [
      [0.5, 'reserve_write', {keys: keys(1), layout_desc: LAYOUT, mode: 'new'}],
      [1e300, 'finish_write', {keys: keys(1)}],
      [2, 'finish_write', {keys: keys(2)}],
    ])
    expect(r.recordsReplayed).toBe(3)
    expect(r.traceTimeS).toBe(1e300)
    expect(obs(r).eviction.ticks).toBeGreaterThan(1e299)
  })
})
