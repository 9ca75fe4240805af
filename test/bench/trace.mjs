// Benchmark of `lmt trace info` (lct.md §4.7): records/s and peak RSS on a generated 1M-record storage trace.
import {existsSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {fmtRate, ROOT, runLmt} from './harness.mjs'
import {writeStorageTrace} from './lct-generate.mjs'

const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})
const results = []
const runs = []
for (const n of [250_000, 1_000_000]) {
  const path = join(dir, `storage_${n}.lct`)
  if (!existsSync(path)) await writeStorageTrace(path, n)
  const r = runLmt(['trace', 'info', path], {json: true})
  runs.push({n, seconds: r.seconds})
  results.push({
    name: `trace info ${n.toLocaleString('en-US')} records`,
    MB: (statSync(path).size / 1e6).toFixed(0),
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(r.output.total_records, r.seconds),
    peakRssMb: r.rssMb.toFixed(0),
  })
}
console.table(results)
// the difference of the two runs cancels the process start-up: the rate of the streaming loop itself
const [small, large] = runs
console.log(
  `steady state: ${fmtRate(large.n - small.n, large.seconds - small.seconds)} (target ≥ 1,000,000/s incl. start-up)`,
)
