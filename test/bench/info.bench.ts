// `npm run bench:info` (docs/storage-replay.md §10.2, docs/lct.md §4.7): countTrace on the default storage workload, the
// best of 3 in this process (start-up excluded, the file in the page cache); then `lmt trace info` as a process on
// 250k and 1M records for its peak RSS, which must not grow with the file. Exits 1 below the target, which
// LMT_BENCH_MIN_RPS can lower on a slow machine.
import {existsSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {writeCycleTrace} from './gen-storage-trace.js'
import {bestOf, fmtRate, reportRecordRate, ROOT, runLmt} from './harness.mjs'

type Reader = typeof import('../../src/lct/reader.js')
const {countTrace} = (await import(
  pathToFileURL(join(ROOT, 'dist', 'src', 'lct', 'reader.js')).href
)) as Reader

const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})
const traceOf = async (records: number): Promise<string> => {
  const path = join(dir, `cycles_${records}.lct`)
  if (!existsSync(path)) await writeCycleTrace(path, {records})
  return path
}

const path = await traceOf(1_000_000)
const bytes = statSync(path).size
let records = 0
const best = await bestOf(3, async () => {
  records = (await countTrace(path, {name: path})).totalRecords
})

const table = []
for (const n of [250_000, 1_000_000]) {
  const file = await traceOf(n)
  const r = runLmt(['trace', 'info', file], {json: true})
  table.push({
    process: `lmt trace info, ${n.toLocaleString('en-US')} records`,
    MB: (statSync(file).size / 1e6).toFixed(0),
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(r.output.total_records, r.seconds) + ' (incl. start-up)',
    peakRssMb: r.rssMb.toFixed(0),
  })
}
console.table(table)
reportRecordRate('info', records, bytes, best, 1_000_000)
