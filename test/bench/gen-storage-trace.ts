// The storage benchmark workload of docs/storage-replay.md §10.1, written with lmt's own .lct writer (the built one, so
// that its values are the classes the built reader and codecs know).
//
//   tsx test/bench/gen-storage-trace.ts OUT.lct [--records R] [--keys K] [--reuse F]
//
// Cycles of the six records of v2_full_prefetch_cycle.lct (reserve_write `new`, finish_write, submit_prefetch_task,
// __enter__, __exit__, finish_read_prefetched), each on K fresh keys (chunk_hash a 4-byte big-endian counter, model
// `test`), t_mono 1 ms apart, `external_request_id` `req-<cycle>`. `--reuse F` (lmt's own mix, not §10.1) makes that
// share of the cycles re-read a group written earlier instead: prefetch, enter, exit, finish read.
import {closeSync, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import {rng} from './generate.mjs'
import {ROOT} from './harness.mjs'

type Values = typeof import('../../src/formats/lct/values.js')
type Writer = typeof import('../../src/formats/lct/writer.js')
type Codecs = typeof import('../../src/formats/lct/codecs.js')
type Recorder = typeof import('../../src/formats/lct/recorder.js')
type LctHeader = import('../../src/formats/lct/types.js').LctHeader

const dist = <T>(p: string): Promise<T> =>
  import(pathToFileURL(join(ROOT, 'dist', 'src', p)).href) as Promise<T>

const STORAGE_MANAGER = 'lmcache.v1.distributed.storage_manager.StorageManager'

export type StorageRecord = [tMono: number, op: string, args: Record<string, unknown>]

/** Writes a storage-level .lct file: the header, then one record per `[tMono, op, args]`, in 4 MiB writes. */
export async function writeLct(
  path: string,
  header: Partial<Omit<LctHeader, 'isPlaceholder'>>,
  records: Iterable<StorageRecord>,
): Promise<void> {
  const {encodeHeaderBody, encodeRecordBody, frame} = await dist<Writer>('formats/lct/writer.js')
  const {encodeArgs} = await dist<Codecs>('formats/lct/codecs.js')
  const fd = openSync(path, 'w')
  try {
    const parts: Buffer[] = [
      frame(
        encodeHeaderBody({
          magic: Uint8Array.from([0x4c, 0x4d, 0x43, 0x54]),
          formatVersion: 1,
          level: 'storage',
          traceSchemaVersion: 2,
          tMonoStart: 0,
          tWallStart: 1750000000,
          smConfigJson: '',
          smConfigDigest: '',
          levelMeta: {},
          ...header,
        } as Omit<LctHeader, 'isPlaceholder'>),
      ),
    ]
    let size = parts[0].length
    for (const [t, op, args] of records) {
      const f = frame(
        encodeRecordBody({
          tMono: t,
          tWall: 1750000000 + t,
          qualname: `${STORAGE_MANAGER}.${op}`,
          args: encodeArgs(args),
        }),
      )
      parts.push(f)
      size += f.length
      if (size > 4 << 20) {
        writeSync(fd, Buffer.concat(parts))
        parts.length = 0
        size = 0
      }
    }
    writeSync(fd, Buffer.concat(parts))
  } finally {
    closeSync(fd)
  }
}

export interface CycleTraceOptions {
  records: number
  keysPerCycle?: number
  /** share of cycles that re-read an earlier group (0: the §10.1 workload) */
  reuse?: number
  seed?: number
}

/**
 * The storage config dict of `--l1-size-gb <l1Bytes / 2^30> --no-l1-use-lazy --eviction-policy LRU` with every
 * other flag at its default: what the benchmark traces' headers carry, so that their replays report a match.
 */
export function benchStorageConfig(l1Bytes: number) {
  return {
    eviction_config: {eviction_policy: 'LRU', eviction_ratio: 0.2, trigger_watermark: 0.8},
    l1_manager_config: {
      memory_config: {
        align_bytes: 4096,
        init_size_in_bytes: l1Bytes,
        size_in_bytes: l1Bytes,
        use_lazy: false,
      },
      read_ttl_seconds: 300,
      write_ttl_seconds: 600,
    },
    l2_adapter_config: {adapters: []},
    prefetch_max_in_flight: 8,
    prefetch_policy: 'default',
    store_policy: 'default',
  }
}

/** The §10.1 workload (`reuse` 0), with the storage config of the benchmark's flags in the header. */
export async function writeCycleTrace(
  path: string,
  {records, keysPerCycle = 3, reuse = 0, seed = 11}: CycleTraceOptions,
): Promise<void> {
  const {ObjectKey, MemoryLayoutDesc} = await dist<Values>('formats/lct/values.js')
  const {configDigest} = await dist<Recorder>('formats/lct/recorder.js')
  const layout = new MemoryLayoutDesc([[16, 16]], ['torch.float16'])
  // the storage config of `--l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU`: the replay reports a match
  const {json, digest} = configDigest(benchStorageConfig(67108864))
  const rand = rng(seed)
  function* generate(): Generator<StorageRecord> {
    let counter = 0
    let t = 0
    const written: unknown[][] = []
    for (let i = 0, cycle = 0; i < records; cycle++) {
      let keys: unknown[]
      const prefetchAndRead = (): Array<[string, Record<string, unknown>]> => [
        [
          'submit_prefetch_task',
          {keys, layout_desc: layout, extra_count: 0, external_request_id: `req-${cycle}`},
        ],
        ['read_prefetched_results.__enter__', {keys}],
        ['read_prefetched_results.__exit__', {keys}],
        ['finish_read_prefetched', {keys, extra_count: 0}],
      ]
      let ops: Array<[string, Record<string, unknown>]>
      if (written.length > 0 && rand() < reuse) {
        // a group written earlier: ~3000 groups back on average (L1 holds ~5400 groups of 3 objects)
        const back = Math.floor(-Math.log(1 - rand()) * 3000)
        keys = written[Math.max(0, written.length - 1 - back)]
        ops = prefetchAndRead()
      } else {
        keys = Array.from({length: keysPerCycle}, () => {
          const h = Buffer.alloc(4)
          h.writeUInt32BE(counter++ >>> 0)
          return new ObjectKey(h, 'test', 0, 0, '')
        })
        if (reuse > 0) written.push(keys)
        ops = [
          ['reserve_write', {keys, layout_desc: layout, mode: 'new'}],
          ['finish_write', {keys}],
          ...prefetchAndRead(),
        ]
      }
      for (const [op, args] of ops) {
        if (i++ >= records) break
        t += 0.001
        yield [t, op, args]
      }
    }
  }
  await writeLct(path, {tMonoStart: 0, smConfigJson: json, smConfigDigest: digest}, generate())
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {positionals, values} = parseArgs({
    allowPositionals: true,
    options: {
      records: {type: 'string', default: '1000000'},
      keys: {type: 'string', default: '3'},
      reuse: {type: 'string', default: '0'},
    },
  })
  const out = positionals[0]
  if (!out) {
    process.stderr.write(
      'usage: tsx test/bench/gen-storage-trace.ts OUT.lct [--records R] [--keys K] [--reuse F]\n',
    )
    process.exit(2)
  }
  await writeCycleTrace(out, {
    records: Number(values.records),
    keysPerCycle: Number(values.keys),
    reuse: Number(values.reuse),
  })
  process.stdout.write(`wrote ${out}\n`)
}
