// Benchmark of `lmt convert` (docs/convert.md §11). Not a test: prints rows/s and peak RSS.
import {existsSync, mkdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {writePublisher, writeQwen, writeQwenStream} from './generate.mjs'
import {fmtRate, ROOT, runLmt} from './harness.mjs'

const big = process.argv.includes('--big')
const dir = join(ROOT, 'bench-out')
mkdirSync(dir, {recursive: true})

async function ensure(path, make) {
  if (!existsSync(path)) await make(path)
  return path
}

const rows = 100_000
const qwen = await ensure(join(dir, `qwen_${rows}.jsonl`), (p) => writeQwen(p, rows))
const qwen200k = await ensure(join(dir, 'qwen_200000.jsonl'), (p) => writeQwen(p, 200_000, {seed: 43}))
const shuffled = await ensure(join(dir, `qwen_${rows}_shuffled.jsonl`), (p) =>
  writeQwen(p, rows, {shuffle: true}),
)
const publisher = await ensure(join(dir, 'publisher_200000.log'), (p) => writePublisher(p, 200_000))
const mooncake = join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl')
// an equal-timestamp storm: every row at one second (each collides with all before it)
const stormRows = 50_000
const storm = await ensure(join(dir, `qwen_storm_${stormRows}.jsonl`), (p) =>
  writeFileSync(
    p,
    Array.from(
      {length: stormRows},
      (_, i) => `{"timestamp": 1.0, "input_length": 64, "hash_ids": [${i}, ${i + 1}, ${i + 2}, ${i + 3}]}\n`,
    ).join(''),
  ),
)

const results = []
function bench(name, input, args, unit, count) {
  const out = join(dir, `${name}.out.jsonl`)
  const inputs = Array.isArray(input) ? input : [input]
  const r = runLmt(['convert', '-q', '-i', ...inputs, '-o', out, ...args], {json: true})
  const n = count ?? r.output.inputs.reduce((sum, i) => sum + i.linesRead, 0)
  results.push({
    name,
    [unit]: n,
    seconds: r.seconds.toFixed(2),
    rate: fmtRate(n, r.seconds),
    peakRssMb: r.rssMb.toFixed(0),
  })
  rmSync(out, {force: true})
  return r
}

bench('qwen_bailian 100k rows x 62 ids', qwen, ['-f', 'qwen_bailian'], 'rows')
bench('qwen_bailian 200k rows x 62 ids', qwen200k, ['-f', 'qwen_bailian'], 'rows')
bench('qwen_bailian 100k rows shuffled', shuffled, ['-f', 'qwen_bailian'], 'rows')
bench('publisher_log 200k lines', publisher, ['-f', 'publisher_log'], 'lines')
bench('mooncake conversation 12k rows', mooncake, ['-f', 'mooncake'], 'rows')
bench(`qwen_bailian ${stormRows / 1000}k rows at one timestamp`, storm, ['-f', 'qwen_bailian'], 'rows')
// several copies of one trace as separate inputs: each goes back to the start of the one before (collision sets span
// all inputs)
bench('qwen_bailian 100k rows x 6 inputs (copies)', Array(6).fill(qwen), ['-f', 'qwen_bailian'], 'rows')
if (big) {
  const huge = await ensure(join(dir, 'qwen_2000000.jsonl'), (p) => writeQwenStream(p, 2_000_000))
  bench('qwen_bailian 2M rows (sorted)', huge, ['-f', 'qwen_bailian'], 'rows')
  // memory against the 200k-line run above: what grows is the events that never finish (docs/performance-notes.md)
  const hugeLog = await ensure(join(dir, 'publisher_2000000.log'), (p) => writePublisher(p, 2_000_000))
  bench('publisher_log 2M lines', hugeLog, ['-f', 'publisher_log'], 'lines')
}
console.table(results)
console.log(
  `inputs in ${dir} (${(statSync(qwen).size / 1e6).toFixed(0)} MB for ${rows} qwen rows); run with --big for the 2M-row and 2M-line memory checks`,
)
