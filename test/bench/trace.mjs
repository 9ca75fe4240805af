// Benchmark of `lmt trace info` (lct.md §4.7): records/s and peak RSS on a generated 1M-record storage trace.
import {existsSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fmtRate, ROOT, runLmt} from './harness.mjs'
import {writeStorageTrace} from './lct-generate.mjs'

const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})
const results = []
for (const n of [250_000, 1_000_000]) {
  const path = join(dir, `storage_${n}.lct`)
  if (!existsSync(path)) await writeStorageTrace(path, n)
  const r = runLmt(['trace', 'info', path], {json: true})
  results.push({
    name: `trace info ${n.toLocaleString('en-US')} records`,
    MB: (statSync(path).size / 1e6).toFixed(0),
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(r.output.total_records, r.seconds),
    peakRssMb: r.rssMb.toFixed(0),
  })
}
console.table(results)
