// Benchmark of `lmt replay --pace virtual` (storage-replay.md §10): the six-record prefetch cycle repeated.
import {existsSync, mkdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {rng} from './generate.mjs'
import {fmtRate, ROOT, runLmt} from './harness.mjs'
import {writeLct} from './lct-generate.mjs'

const dist = (p) => import(join(ROOT, 'dist', 'src', p))
const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})

/**
 * Cycles of reserve_write, finish_write, submit_prefetch_task, __enter__, __exit__, finish_read_prefetched on new
 * keys; with `reuse` > 0 that share of cycles instead reads a group written earlier (prefetch, enter, exit, finish
 * read), picked with a bias to recent groups: most are still in L1, older ones were evicted (prefetch misses).
 */
async function writeCycles(path, records, {keysPerCycle = 3, reuse = 0, seed = 11} = {}) {
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
  const rand = rng(seed)
  function* generate() {
    let counter = 0
    let t = 0
    const written = []
    for (let i = 0, cycle = 0; i < records; cycle++) {
      let keys
      const prefetchAndRead = () => [
        [
          'submit_prefetch_task',
          {keys, layout_desc: layout, extra_count: 0, external_request_id: `req-${cycle}`},
        ],
        ['read_prefetched_results.__enter__', {keys}],
        ['read_prefetched_results.__exit__', {keys}],
        ['finish_read_prefetched', {keys, extra_count: 0}],
      ]
      let ops
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

const results = []
const cases = [
  {n: 250_000, reuse: 0, file: 'cycles_250000.lct', what: 'every cycle on new keys'},
  {n: 1_000_000, reuse: 0, file: 'cycles_1000000.lct', what: 'every cycle on new keys'},
  {n: 1_000_000, reuse: 0.5, file: 'cycles_reuse_1000000.lct', what: 'half the cycles re-read earlier keys'},
]
for (const {n, reuse, file, what} of cases) {
  const path = join(dir, file)
  if (!existsSync(path)) await writeCycles(path, n, {reuse})
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
    '--json',
    '--output-dir',
    join(dir, 'replay-out'),
  ])
  const summary = JSON.parse(readFileSync(join(dir, 'replay-out', 'trace_replay_summary.json'), 'utf8'))
  const l1 = summary.model?.l1 ?? {}
  results.push({
    name: `replay ${n.toLocaleString('en-US')} records: ${what}`,
    MB: (statSync(path).size / 1e6).toFixed(0),
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(n, r.seconds),
    target: '≥ 200,000/s',
    prefixHits: `${(l1.prefix_hit_keys / Math.max(1, l1.prefix_hit_keys + l1.prefix_miss_keys)).toFixed(2)}`,
    evicted: summary.model?.eviction?.evicted_keys,
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
