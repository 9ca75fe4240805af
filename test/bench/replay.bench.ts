// `npm run bench:replay` (docs/storage-replay.md §10.2): `lmt replay` in virtual time on the default storage workload,
// `-q --no-csv --l1-size-gb 0.0625 --no-l1-use-lazy --eviction-policy LRU`, the best of 3 in this process (oclif
// loaded once: start-up excluded), and likewise an engine-shaped trace (20,000 requests, ~19 keys a record,
// > 100k distinct keys, a 256 MiB L1 under OOM and eviction pressure) against its own target. Then, as processes with their peak RSS: a 1M-record mix in which half the
// cycles re-read earlier keys, and the bundled Mooncake trace converted to a storage .lct and replayed. Exits 1
// below the target, which LMT_BENCH_MIN_RPS can lower on a slow machine.
import {Config} from '@oclif/core'
import {existsSync, mkdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {writeCycleTrace} from './gen-storage-trace.js'
import {ENGINE_FLAGS, writeEngineTrace} from './gen-engine-trace.js'
import {bestOf, fmtRate, reportRecordRate, ROOT, runLmt} from './harness.mjs'

const dir = join(ROOT, 'bench-out')
const out = join(dir, 'replay-out')
mkdirSync(out, {recursive: true})
const flags = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU', '-q', '--no-csv']

const path = join(dir, 'cycles_1000000.lct')
if (!existsSync(path)) await writeCycleTrace(path, {records: 1_000_000})
const records = 1_000_000
const bytes = statSync(path).size
const config = await Config.load(ROOT)
const best = await bestOf(3, () => config.runCommand('replay', [path, ...flags, '--output-dir', out]))

const engine = join(dir, 'engine_20000_requests.lct')
if (!existsSync(engine)) await writeEngineTrace(engine, {requests: 20_000})
const engineRecords = 119_420
const engineBest = await bestOf(3, () =>
  config.runCommand('replay', [engine, ...ENGINE_FLAGS, '-q', '--no-csv', '--output-dir', out]),
)

const table = []
const reuse = join(dir, 'cycles_reuse_1000000.lct')
if (!existsSync(reuse)) await writeCycleTrace(reuse, {records: 1_000_000, reuse: 0.5})
for (const [file, what] of [
  [path, 'every cycle on new keys'],
  [reuse, 'half the cycles re-read earlier keys'],
]) {
  const r = runLmt(['replay', file, ...flags, '--json', '--output-dir', out])
  const summary = JSON.parse(readFileSync(join(out, 'trace_replay_summary.json'), 'utf8'))
  const l1 = summary.model?.l1 ?? {}
  table.push({
    process: `lmt replay, 1,000,000 records: ${what}`,
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(records, r.seconds) + ' (incl. start-up)',
    prefixHits: (l1.prefix_hit_keys / Math.max(1, l1.prefix_hit_keys + l1.prefix_miss_keys)).toFixed(2),
    evicted: summary.model?.eviction?.evicted_keys,
    peakRssMb: r.rssMb.toFixed(0),
  })
}

// the bridge: the bundled Mooncake trace converted to a storage .lct, then replayed
const mc = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
const mcLct = join(dir, 'mooncake_conversation.lct')
const storage = ['--l1-size-gb', '4', '--eviction-policy', 'LRU']
const conv = runLmt([
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
  ...storage,
])
const rep = runLmt(['replay', mcLct, ...storage, '-q', '--no-csv', '--output-dir', out])
const lctRecords = 6 * 12031
table.push(
  {
    process: 'lmt convert Mooncake (12,031 rows) → .lct',
    seconds: conv.seconds.toFixed(2),
    rate: fmtRate(12031, conv.seconds) + ' rows',
    prefixHits: '',
    evicted: undefined,
    peakRssMb: conv.rssMb.toFixed(0),
  },
  {
    process: `lmt replay of that .lct (${lctRecords.toLocaleString('en-US')} records, 4 GB L1)`,
    seconds: rep.seconds.toFixed(2),
    rate: fmtRate(lctRecords, rep.seconds) + ' records',
    prefixHits: '',
    evicted: undefined,
    peakRssMb: rep.rssMb.toFixed(0),
  },
)
console.table(table)
reportRecordRate('replay', records, bytes, best, 200_000)
// 600 s of trace time: ≥ 120k records/s is ≥ 500× real time
reportRecordRate('replay (engine-shaped)', engineRecords, statSync(engine).size, engineBest, 120_000)
console.log(`replay (engine-shaped): ${(600 / engineBest).toFixed(0)}× real time`)
