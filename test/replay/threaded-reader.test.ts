import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import {FIXTURES, ROOT, tempDir} from '../helpers/cli.js'
import {key, LAYOUT, type Rec, writeTrace} from './helpers.js'

// the worker path needs the built files (a worker runs JavaScript): `npm test` builds first
const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href
const {replayTrace} = (await import(
  dist('src/replay/driver.js')
)) as typeof import('../../src/replay/driver.js')
const {openTrace} = (await import(dist('src/lct/reader.js'))) as typeof import('../../src/lct/reader.js')
const {openTraceThreaded} = (await import(
  dist('src/lct/threaded-reader.js')
)) as typeof import('../../src/lct/threaded-reader.js')
const {storageLevel} = (await import(
  dist('src/replay/storage/storage-level.js')
)) as typeof import('../../src/replay/storage/storage-level.js')
const {LctError} = (await import(dist('src/errors.js'))) as typeof import('../../src/errors.js')

const tmp = tempDir()
afterAll(() => tmp.cleanup())

/** A replay's observable outcome: every warning and record outcome in order, the model's state and counters. */
async function replayLog(file: string, readerThread: boolean, flags: Record<string, unknown>) {
  const reader = await openTrace(file)
  const header = reader.header
  await reader.close()
  const log: string[] = []
  const config = storageLevel.parseConfig(flags, header, (m) => log.push(`config ${m}`))
  const r = await replayTrace({
    file,
    level: storageLevel as never,
    config,
    header,
    pace: 'virtual',
    speed: 1,
    readerThread,
    warn: (code, k, message) => log.push(`warn ${code} ${k} ${message}`),
    onRecord: (o) => log.push(`record ${o.index} ${o.qualname} ${o.status} ${o.error ?? ''}`),
  })
  return {
    log,
    counts: [r.recordsReplayed, r.recordsSkipped, r.recordsFailed, r.nonfiniteTMono, r.traceTimeS],
    skipped: r.skippedByReason,
    observations: r.observations?.json,
    digest: r.snapshot?.digest,
  }
}

/** Random storage records: repeated keys, every op, bad payloads, unknown tags and qualnames, long gaps. */
function randomRecords(n: number, seed: number, distinctKeys: number): Rec[] {
  let x = seed
  const rand = () => ((x = ((Math.imul(x, 48271) + 11) % 2147483647) >>> 0) % 1_000_000) / 1_000_000
  const pick = (k: number) => Math.floor(rand() * k)
  const recs: Rec[] = []
  let t = 0
  for (let i = 0; i < n; i++) {
    t += rand() < 0.02 ? 400 : rand() * 0.05
    const ks = Array.from({length: 1 + pick(4)}, () => key(pick(distinctKeys)))
    if (rand() < 0.1) ks.push(ks[0])
    const op = pick(12)
    if (op === 0)
      recs.push([t, 'reserve_write', {keys: ks, layout_desc: LAYOUT, mode: ['new', 'all'][pick(2)]}])
    else if (op === 1) recs.push([t, 'finish_write', {keys: ks}])
    else if (op === 2) recs.push([t, 'abort_write', {keys: ks}])
    else if (op === 3)
      recs.push([t, 'submit_prefetch_task', {keys: ks, layout_desc: LAYOUT, extra_count: pick(2)}])
    else if (op === 4) recs.push([t, 'read_prefetched_results.__enter__', {keys: ks}])
    else if (op === 5) recs.push([t, 'read_prefetched_results.__exit__', {keys: ks}])
    else if (op === 6) recs.push([t, 'finish_read_prefetched', {keys: ks, read_locks: 1 + pick(2)}])
    else if (op === 7) {
      // an ObjectKey whose payload is invalid (model name with '@'): it stays a raw map, the record is skipped
      const bad = {__t__: 'ObjectKey', v: {chunk_hash: Buffer.alloc(4), model_name: 'a@b', kv_rank: 0}}
      recs.push([t, 'finish_write', {keys: [...ks, bad]}])
    } else if (op === 8) recs.push([t, 'finish_write', {keys: ks, extra: {__t__: 'NoSuchTag', v: 1}}])
    else if (op === 9) recs.push([t, 'no_such_method', {keys: ks}])
    else recs.push([t, 'reserve_write', {keys: ks, layout_desc: LAYOUT}])
  }
  return recs
}

/**
 * Overwrites the first body byte of some frames with 0xc1 (never valid msgpack), one random byte of others with a
 * random value (failures anywhere in a record, or a record that still decodes), and cuts the file short.
 */
function corrupt(file: string, every: number): void {
  const bytes = Buffer.from(readFileSync(file))
  let i = 0
  let x = 12345
  const rand = (k: number) => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) % k
  for (let p = 4 + bytes.readUInt32BE(0); p + 4 < bytes.length; p += 4 + bytes.readUInt32BE(p)) {
    const n = bytes.readUInt32BE(p)
    if (++i % every === 0) bytes[p + 4] = 0xc1
    else if (i % 13 === 0 && p + 4 + n <= bytes.length) bytes[p + 4 + rand(n)] = rand(256)
  }
  writeFileSync(file, bytes.subarray(0, bytes.length - 5))
}

/** Key lists mostly repeated from record to record, among lists that are not all keys, and many distinct keys. */
function repeatedLists(): Rec[] {
  let x = 99
  const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) % 1_000_000) / 1_000_000
  const pick = (k: number) => Math.floor(rand() * k)
  const recs: Rec[] = []
  let fresh = 1000
  let ks = [key(0)]
  for (let i = 0; i < 16_000; i++) {
    // mostly the previous list again; else shared and fresh keys (over 65,536 in all: the cache starts afresh)
    if (rand() > 0.7)
      ks = Array.from({length: 1 + pick(8)}, () => (rand() < 0.3 ? key(pick(50)) : key(fresh++)))
    const t = i * 0.001
    const op = pick(10)
    if (op === 0) recs.push([t, 'reserve_write', {keys: ks, layout_desc: LAYOUT, mode: 'new'}])
    else if (op === 1)
      recs.push([t, 'finish_write', {keys: [...ks, 7]}]) // a list that is not all keys
    else if (op === 2) {
      const bad = {__t__: 'ObjectKey', v: {chunk_hash: Buffer.alloc(4), model_name: 'a@b', kv_rank: 0}}
      recs.push([t, 'finish_write', {keys: [...ks, bad]}])
    } else if (op === 3)
      recs.push([t, 'finish_write', {keys: ks, extra: [ks, [ks]]}]) // nested lists
    else if (op === 4) recs.push([t, 'read_prefetched_results.__enter__', {keys: ks}])
    else if (op === 5) recs.push([t, 'read_prefetched_results.__exit__', {keys: ks}])
    else if (op === 6) recs.push([t, 'submit_prefetch_task', {keys: ks, layout_desc: LAYOUT}])
    else recs.push([t, ['finish_write', 'reserve_write'][pick(2)], {keys: ks, layout_desc: LAYOUT}])
    // more distinct keys than the reading side caches: it starts afresh inside such a list (after its known first
    // key), which then recurs
    if (i % 4 === 0) {
      const many = [key(pick(50)), ...Array.from({length: 20}, () => key(fresh++))]
      recs.push([t + 0.0004, 'reserve_write', {keys: many, layout_desc: LAYOUT, mode: 'new'}])
      recs.push([t + 0.0005, 'finish_write', {keys: many}])
    }
  }
  return recs
}

const FLAGS = {'l1-size-gb': '0.0002', 'eviction-policy': 'LRU', 'l1-write-ttl-seconds': 300}

const {ObjectKey} = await import('../../src/lct/values.js')

/** Args as comparable data: keys by id. */
const norm = (v: unknown): unknown =>
  v instanceof ObjectKey
    ? `key ${v.id}`
    : Array.isArray(v)
      ? v.map(norm)
      : v !== null && typeof v === 'object' && !(v instanceof Uint8Array)
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, norm(x)]))
        : v

describe('replay with the trace decoded on a worker thread', () => {
  it('gives the same outcomes, warnings (in the same places), state and counters as in-thread decoding', async () => {
    const file = writeTrace(join(tmp.dir, 'random.lct'), randomRecords(6000, 7, 60))
    corrupt(file, 397)
    const inThread = await replayLog(file, false, FLAGS)
    const threaded = await replayLog(file, true, FLAGS)
    expect(threaded).toEqual(inThread)
    // the trace exercises what it should
    const kinds = new Set(inThread.log.map((l) => l.split(' ').slice(0, 2).join(' ')))
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        'record 1',
        'warn LMT_LCT_MALFORMED_RECORD',
        'warn LMT_LCT_TRUNCATED_BODY',
        'warn decode_error',
        'warn unknown_tag',
        'warn no_handler',
      ]),
    )
    expect(inThread.skipped.decode_error).toBeGreaterThan(0)
    expect(inThread.counts[0]).toBeGreaterThan(4000)
  })

  it('forgets values the reading side no longer returns, and stays exact (more distinct keys than it caches)', async () => {
    const recs: Rec[] = []
    for (let c = 0; c < 24_000; c++) {
      const ks = [key(3 * c), key(3 * c + 1), key(3 * c + 2)]
      recs.push([c * 0.001, 'reserve_write', {keys: ks, layout_desc: LAYOUT, mode: 'new'}])
      recs.push([c * 0.001 + 0.0005, 'finish_write', {keys: ks}])
      // keys from far back: evicted by then, or found again after the reading side's cache started afresh
      if (c % 7 === 0 && c > 0) recs.push([c * 0.001 + 0.0007, 'finish_write', {keys: [key(c)]}])
    }
    const file = writeTrace(join(tmp.dir, 'many-keys.lct'), recs)
    const flags = {'l1-size-gb': '0.01', 'eviction-policy': 'LRU'}
    expect(await replayLog(file, true, flags)).toEqual(await replayLog(file, false, flags))
  })

  it('key lists repeated from record to record (one memcmp on the reading side, one shared array) replay the same', async () => {
    const recs = repeatedLists()
    // some shared lists name a key twice (L1 then keeps outcomes by id; learnt once per shared list)
    const repeats = (ks: unknown) =>
      Array.isArray(ks) && new Set(ks.map((k: {id?: string}) => k.id)).size < ks.length
    expect(recs.filter(([, , a]) => repeats(a.keys)).length).toBeGreaterThan(100)
    const file = writeTrace(join(tmp.dir, 'repeated-lists.lct'), recs)
    corrupt(file, 211) // corrupted bytes inside repeated lists too
    const flags = {'l1-size-gb': '0.001', 'eviction-policy': 'LRU'}
    const inThread = await replayLog(file, false, flags)
    expect(await replayLog(file, true, flags)).toEqual(inThread)
    expect(inThread.counts[0]).toBeGreaterThan(8000)
  })

  it('a trace of thousands of distinct qualnames (beyond those numbered once) replays the same', async () => {
    const recs: Rec[] = Array.from({length: 5000}, (_, i) => [i * 0.01, `method_${i}`, {keys: [key(i)]}])
    recs.push([60, 'finish_write', {keys: [key(1)]}])
    const file = writeTrace(join(tmp.dir, 'qualnames.lct'), recs)
    const threaded = await replayLog(file, true, FLAGS)
    expect(threaded).toEqual(await replayLog(file, false, FLAGS))
    expect(
      threaded.skipped.no_handler['lmcache.v1.distributed.storage_manager.StorageManager.method_4999'],
    ).toBe(1)
  })

  it('the fixtures replay the same either way', async () => {
    for (const name of ['v2_full_prefetch_cycle', 'v2_truncated_tail', 'v2_all_codec_shapes']) {
      const file = join(FIXTURES, 'lct', `${name}.lct`)
      const flags = {'l1-size-gb': '0.0625', 'l1-use-lazy': false, 'eviction-policy': 'LRU'}
      expect(await replayLog(file, true, flags)).toEqual(await replayLog(file, false, flags))
    }
  })

  it('hands records over a few hundred at a time (garbage by the next collection), warnings in place', async () => {
    const file = writeTrace(join(tmp.dir, 'chunks.lct'), randomRecords(5000, 11, 40))
    writeFileSync(file, readFileSync(file).subarray(0, -5)) // a truncated tail: one warning, at the end
    const plain: string[] = []
    const reader = await openTrace(file, {internObjectKeys: true, onWarning: (w) => plain.push(w.code)})
    for await (const batch of reader.batches()) for (const r of batch) plain.push(`${r.index}`)
    const threaded: string[] = []
    const sizes: number[] = []
    const onWarning = (w: {code: string}) => threaded.push(w.code)
    for await (const batch of openTraceThreaded(file, {onWarning}).batches()) {
      sizes.push(batch.length)
      for (const r of batch) threaded.push(`${r.index}`)
    }
    expect(threaded).toEqual(plain)
    expect(plain.length).toBeGreaterThan(4000)
    expect(Math.max(...sizes)).toBe(256)
  })

  it('an error of the reading thread surfaces as the same coded error', async () => {
    const dir = tmp.dir // a directory: the file cannot be read
    const inThread = await openTrace(dir).catch((e: unknown) => e)
    const threaded = await (async () => {
      for await (const batch of openTraceThreaded(dir).batches()) void batch
    })().catch((e: unknown) => e)
    expect(threaded).toBeInstanceOf(LctError)
    expect((threaded as Error).message).toBe((inThread as Error).message)
    expect((threaded as InstanceType<typeof LctError>).code).toBe(
      (inThread as InstanceType<typeof LctError>).code,
    )
  })
})

describe('record tape', () => {
  it('gives the in-thread reader’s records batch by batch, key lists repeated across a fresh cache', async () => {
    const {readTapes, openTrace: openSrc} = await import('../../src/lct/reader.js')
    const {TapeDecoder} = await import('../../src/lct/record-tape.js')
    const file = writeTrace(join(tmp.dir, 'repeated-lists-tapes.lct'), repeatedLists())
    const plain: unknown[] = []
    for await (const batch of (await openSrc(file, {internObjectKeys: true})).batches())
      for (const r of batch) plain.push([r.index, r.qualname, norm(r.args)])
    const decoder = new TapeDecoder()
    const taped: unknown[] = []
    // one record a batch: values the reading side dropped are gone from the decoder at once
    for await (const batch of readTapes(file, {batchRecords: 1}))
      for (const r of decoder.records(batch)) taped.push([r.index, r.qualname, norm(r.args)])
    expect(taped).toEqual(plain)
    expect(plain.length).toBeGreaterThan(15_000)
  })

  it('hands a repeated key list over once: one array when shared, a copy per record otherwise', async () => {
    const {readTapes, openTrace: openSrc} = await import('../../src/lct/reader.js')
    const {TapeDecoder} = await import('../../src/lct/record-tape.js')
    const file = writeTrace(join(tmp.dir, 'shared-lists.lct'), repeatedLists())
    const plain: unknown[] = []
    for await (const batch of (await openSrc(file, {internObjectKeys: true})).batches())
      for (const r of batch) plain.push([r.index, r.qualname, norm(r.args)])
    for (const shareLists of [true, false]) {
      const decoder = new TapeDecoder({shareLists})
      const taped: unknown[] = []
      let previous: unknown
      let same = 0
      const arrays = new Set<unknown>()
      for await (const batch of readTapes(file))
        for (const r of decoder.records(batch)) {
          taped.push([r.index, r.qualname, norm(r.args)])
          const keys = r.args.keys
          if (keys === previous) same++
          previous = keys
          arrays.add(keys)
        }
      expect(taped).toEqual(plain)
      if (shareLists) expect(same).toBeGreaterThan(5000)
      else expect(arrays.size).toBe(taped.length)
    }
  })

  it('defines a list again where the record that defined it was dropped, or its args were replaced', async () => {
    const {readTapes, openTrace: openSrc} = await import('../../src/lct/reader.js')
    const {TapeDecoder} = await import('../../src/lct/record-tape.js')
    const {encodeArgs} = await import('../../src/lct/codecs.js')
    const {recordArgs} = await import('../../src/lct/record-args.js')
    const {PyTuple} = await import('../../src/lct/values.js')
    const {header, mapFrame, recordEntries} = await import('../lct/helpers.js')
    const list = (from: number) => Array.from({length: 5}, (_, i) => key(from + i))
    const args = (a: Record<string, unknown>) => encodeArgs(a)
    const rec = (a: Record<string, unknown>) => mapFrame(recordEntries('q', args(a)), ['t_mono', 't_wall'])
    const frames = [
      header(),
      // args walked, then the record fails (no t_mono): the list it recorded never reached the tape
      mapFrame(recordEntries('q', args({keys: list(0)})).filter(([k]) => k !== 't_mono')),
      rec({keys: list(0)}),
      rec({keys: list(0)}),
      // a repeated args key: the first args (and the list recorded in them) are replaced by the second
      mapFrame([...recordEntries('q', args({keys: list(10)})), ['args', {x: 1}]], ['t_mono', 't_wall']),
      rec({keys: list(10)}),
      rec({keys: list(10), again: list(10), nested: [list(10)]}),
      rec({keys: list(10)}),
      // a wrapper left for codec decoding: decoding in place leaves the shared list as it is (decoded values)
      rec({keys: list(10), tuple: new PyTuple([1, 2])}),
    ]
    const bytes = Buffer.concat(frames)
    const {Readable} = await import('node:stream')
    const plain: unknown[] = []
    for await (const r of await openSrc(Readable.from([bytes]), {internObjectKeys: true}))
      plain.push([r.index, norm(recordArgs(r))])
    const decoder = new TapeDecoder({shareLists: true})
    const taped: Array<{keys: unknown; again?: unknown}> = []
    const seen: unknown[] = []
    for await (const batch of readTapes(Readable.from([bytes]), {batchRecords: 1}))
      for (const r of decoder.records(batch)) {
        seen.push([r.index, norm(recordArgs(r))])
        taped.push(r.args as never)
      }
    expect(seen).toEqual(plain)
    expect(seen).toHaveLength(7)
    expect(taped[1].keys).toBe(taped[0].keys)
    expect(taped[4].keys).toBe(taped[3].keys)
    expect(taped[4].again).toBe(taped[3].keys)
    expect(taped[5].keys).toBe(taped[3].keys)
    expect(taped[6].keys).toBe(taped[3].keys)
    expect((taped[6] as unknown as {tuple: unknown}).tuple).toBeInstanceOf(PyTuple)
  })

  it('starts with small batches (the replay begins while the reading side warms up), then doubles them', async () => {
    const {readTapes} = await import('../../src/lct/reader.js')
    const recs: Rec[] = Array.from({length: 3000}, (_, i) => [i * 0.001, 'finish_write', {keys: [key(i)]}])
    const file = writeTrace(join(tmp.dir, 'ramp.lct'), recs)
    const counts: number[] = []
    for await (const batch of readTapes(file, {batchRecords: 1000})) counts.push(batch.count)
    expect(counts).toEqual([64, 128, 256, 512, 1000, 1000, 40])
  })

  it('references values by ids beyond 32 bits, and rebuilds keys field for field', async () => {
    const {TapeWriter, TapeDecoder} = await import('../../src/lct/record-tape.js')
    const {ObjectKey} = await import('../../src/lct/values.js')
    // {"keys": [nil, 7]}: the nil stands where an interned key was read
    const body = Buffer.from([0x81, 0xa4, ...Buffer.from('keys'), 0x92, 0xc0, 0x07])
    const k = new ObjectKey(Buffer.from([1, 2, 3]), 'model', 3, 2, 'salt')
    const writer = new TapeWriter()
    writer.beginRecord()
    writer.setSource(body)
    const id = 2 ** 40 + 5
    writer.interned(7, 8, id, k)
    const fields = {tMono: 1.5, tWall: 2.5, qualname: 'q', args: {}, argsStart: 0, argsEnd: body.length}
    writer.addRecord(fields, 100, body.length, 0)
    const [record] = new TapeDecoder().records(writer.take(0))
    const keys = (record.args as {keys: unknown[]}).keys
    expect(keys[1]).toBe(7)
    const back = keys[0] as InstanceType<typeof ObjectKey>
    expect(back).toBeInstanceOf(ObjectKey)
    expect([back.id, back.kvRank, back.objectGroupId, Buffer.from(back.chunkHash).toString('hex')]).toEqual([
      k.id,
      3,
      2,
      '010203',
    ])
    expect([record.tMono, record.tWall, record.qualname, record.offset, record.length]).toEqual([
      1.5,
      2.5,
      'q',
      100,
      body.length,
    ])
  })

  it('keeps every value a batch references, however many new values one record brings', async () => {
    const {TapeWriter, TapeDecoder} = await import('../../src/lct/record-tape.js')
    const {ObjectKey} = await import('../../src/lct/values.js')
    // {"keys": [nil × 100]}: each nil stands where a new interned key was read
    const n = 100
    const body = Buffer.from([
      0x81,
      0xa4,
      ...Buffer.from('keys'),
      0xdc,
      0,
      n,
      ...new Array<number>(n).fill(0xc0),
    ])
    const writer = new TapeWriter()
    writer.beginRecord()
    writer.setSource(body)
    const keys = Array.from({length: n}, (_, i) => new ObjectKey(Buffer.from([i]), 'm', 0, 0, ''))
    for (let i = 0; i < n; i++) writer.interned(9 + i, 10 + i, 1000 + i, keys[i])
    const fields = {tMono: 0, tWall: 0, qualname: 'q', args: {}, argsStart: 0, argsEnd: body.length}
    writer.addRecord(fields, 0, body.length, 0)
    const decoder = new TapeDecoder({ringSize: 8}) // far fewer places than the record's new values: the ring grows
    const [record] = decoder.records(writer.take(1000))
    const back = (record.args as unknown as {keys: Array<InstanceType<typeof ObjectKey>>}).keys
    expect(back.map((k) => k.id)).toEqual(keys.map((k) => k.id))
  })
})
