// Benchmark of `lmt replay --pace virtual` (storage-replay.md §10): the six-record prefetch cycle repeated.
import {existsSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fmtRate, ROOT, runLmt} from './harness.mjs'
import {writeLct} from './lct-generate.mjs'

const dist = (p) => import(join(ROOT, 'dist', 'src', p))
const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})

/** Cycles of reserve_write, finish_write, submit_prefetch_task, __enter__, __exit__, finish_read_prefetched. */
async function writeCycles(path, records, keysPerCycle = 3) {
  const {ObjectKey, MemoryLayoutDesc} = await dist('lct/values.js')
  const {configDigest} = await dist('lct/recorder.js')
  const layout = new MemoryLayoutDesc([[16, 16]], ['torch.float16'])
  // the storage config of the flags below (64 MiB eager L1, LRU), so the replay reports a digest match
  const {json, digest} = configDigest({
    eviction_config: {eviction_policy: 'LRU', eviction_ratio: 0.2, trigger_watermark: 0.8},
    l1_manager_config: {
      memory_config: {
        align_bytes: 4096,
        init_size_in_bytes: 67108864,
        size_in_bytes: 67108864,
        use_lazy: false,
      },
      read_ttl_seconds: 300,
      write_ttl_seconds: 600,
    },
    l2_adapter_config: {adapters: []},
    prefetch_max_in_flight: 8,
    prefetch_policy: 'default',
    store_policy: 'default',
  })
  function* generate() {
    let counter = 0
    let t = 0
    for (let i = 0, cycle = 0; i < records; cycle++) {
      const keys = Array.from({length: keysPerCycle}, () => {
        const h = Buffer.alloc(4)
        h.writeUInt32BE(counter++ >>> 0)
        return new ObjectKey(h, 'test', 0, 0, '')
      })
      const ops = [
        ['reserve_write', {keys, layout_desc: layout, mode: 'new'}],
        ['finish_write', {keys}],
        [
          'submit_prefetch_task',
          {keys, layout_desc: layout, extra_count: 0, external_request_id: `req-${cycle}`},
        ],
        ['read_prefetched_results.__enter__', {keys}],
        ['read_prefetched_results.__exit__', {keys}],
        ['finish_read_prefetched', {keys, extra_count: 0}],
      ]
      for (const [op, args] of ops) {
        if (i++ >= records) break
        t += 0.001
        yield [t, op, args]
      }
    }
  }
  await writeLct(path, {tMonoStart: 0, smConfigJson: json, smConfigDigest: digest}, generate())
}

const results = []
for (const n of [250_000, 1_000_000]) {
  const path = join(dir, `cycles_${n}.lct`)
  if (!existsSync(path)) await writeCycles(path, n)
  const r = runLmt([
    'replay',
    path,
    '--l1-size-gb',
    '0.0625',
    '--no-l1-use-lazy',
    '--eviction-policy',
    'LRU',
    '-q',
    '--no-csv',
    '--output-dir',
    join(dir, 'replay-out'),
  ])
  results.push({
    name: `replay ${n.toLocaleString('en-US')} records`,
    MB: (statSync(path).size / 1e6).toFixed(0),
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(n, r.seconds),
    target: '≥ 200,000/s',
    peakRssMb: r.rssMb.toFixed(0),
  })
}
console.table(results)

// the bridge: the bundled Mooncake trace converted to a storage .lct, then replayed
const mc = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
const mcLct = join(dir, 'mooncake_conversation.lct')
const conv = runLmt(
  [
    'convert',
    '-q',
    '-i',
    mc,
    '-f',
    'mooncake',
    '--mode',
    'lct',
    '-o',
    mcLct,
    '--bytes-per-block',
    '65536',
    '--l1-size-gb',
    '4',
    '--eviction-policy',
    'LRU',
  ],
  {json: true},
)
const lctRecords = 6 * 12031
const rep = runLmt([
  'replay',
  mcLct,
  '--l1-size-gb',
  '4',
  '--eviction-policy',
  'LRU',
  '-q',
  '--no-csv',
  '--output-dir',
  join(dir, 'replay-out'),
])
console.table([
  {
    step: 'convert Mooncake → .lct',
    rows: 12031,
    records: lctRecords,
    seconds: conv.seconds.toFixed(2),
    rate: fmtRate(12031, conv.seconds) + ' rows',
    peakRssMb: conv.rssMb.toFixed(0),
  },
  {
    step: 'replay the .lct (4 GB L1)',
    rows: 12031,
    records: lctRecords,
    seconds: rep.seconds.toFixed(2),
    rate: fmtRate(lctRecords, rep.seconds) + ' records',
    peakRssMb: rep.rssMb.toFixed(0),
  },
])
