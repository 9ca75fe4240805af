// `npm run bench:simulate-e2e`: `lmt simulate` end to end — start-up, block-size inference, parsing,
// replay and outputs — on these cases, each the median of 5 runs after a warm-up (CPU time beside
// the wall time: on a loaded machine the wall time mostly measures the wait for a core). Exits 1 when a target is
// missed.
import {existsSync, mkdirSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {writeQwen} from './generate.mjs'
import {type LmtRun, ROOT, runLmt} from './harness.mjs'
import {sideBySide} from './optimizer/side-by-side.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-bench-e2e-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
const kept = join(ROOT, 'bench-out')
mkdirSync(kept, {recursive: true})
// the Mooncake conversation sample as `lmt convert -f mooncake` writes it (553k lookups, 16 MB)
const mooncake = join(dir, 'mc.jsonl')
runLmt([
  'convert',
  '-q',
  '-i',
  join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl'),
  '-f',
  'mooncake',
  '-o',
  mooncake,
])
// 100k qwen-shaped rows of ~62 ids, converted at block size 16 (12.2M lookups, 300 MB), kept between runs
const generated = join(kept, 'generated_100000.trace.jsonl')
if (!existsSync(generated)) {
  const rows = join(kept, 'qwen_100000_seed44.jsonl')
  await writeQwen(rows, 100_000, {seed: 44})
  runLmt(['convert', '-q', '-i', rows, '-f', 'qwen_bailian', '-o', generated])
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sim = (trace: string, extra: string[], plots = false): LmtRun =>
  runLmt(['simulate', '--trace', trace, '-o', join(dir, 'out'), ...(plots ? [] : ['--no-plots']), ...extra], {
    json: true,
  })

interface Case {
  name: string
  trace: string
  args: string[]
  /** with the default outputs (the plot too) */
  plots?: boolean
  maxWall?: number
  maxRssMb?: number
  minLookupsPerSecond?: number
}
const cases: Case[] = [
  {
    name: 'mooncake lru 17,090 blocks (default outputs)',
    trace: mooncake,
    args: ['--capacity-blocks', '17090'],
    plots: true,
    maxWall: 0.5,
    maxRssMb: 100,
  },
  {
    name: 'mooncake lru 17,090 blocks, --no-plots',
    trace: mooncake,
    args: ['--capacity-blocks', '17090'],
  },
  {
    name: 'mooncake random_lru 17,090 blocks',
    trace: mooncake,
    args: ['--capacity-blocks', '17090', '--policy', 'random_lru'],
    maxWall: 0.6,
  },
  {
    name: 'generated 100k × 62 lru 100,000 blocks of 16',
    trace: generated,
    args: ['--capacity-blocks', '100000', '--block-size', '16'],
    minLookupsPerSecond: 5e6,
  },
]
const table = []
for (const c of cases) {
  sim(c.trace, c.args, c.plots) // warm-up (the page cache)
  const runs = Array.from({length: 5}, () => sim(c.trace, c.args, c.plots))
  const wall = median(runs.map((r) => r.seconds))
  const rss = median(runs.map((r) => r.rssMb))
  const lookups = runs[0].output.performance.block_lookups as number
  const rate = lookups / wall
  const misses = [
    c.maxWall !== undefined && wall > c.maxWall,
    c.maxRssMb !== undefined && rss > c.maxRssMb,
    c.minLookupsPerSecond !== undefined && rate < c.minLookupsPerSecond,
  ]
  table.push({
    case: c.name,
    wall: `${wall.toFixed(2)} s`,
    cpu: `${median(runs.map((r) => r.cpuSeconds)).toFixed(2)} s`,
    lookupsPerS: `${(rate / 1e6).toFixed(2)} M (end to end)`,
    parse: `${median(runs.map((r) => r.output.performance.parse_mb_per_second)).toFixed(0)} MB/s (${(statSync(c.trace).size / 1e6).toFixed(0)} MB)`,
    peakRssMb: rss.toFixed(0),
    target: [
      c.maxWall !== undefined ? `≤ ${c.maxWall} s` : '',
      c.maxRssMb !== undefined ? `≤ ${c.maxRssMb} MB` : '',
      c.minLookupsPerSecond !== undefined ? `≥ ${c.minLookupsPerSecond / 1e6} M lookups/s` : '',
    ]
      .filter(Boolean)
      .join(', '),
    met: misses.some(Boolean) ? 'NO' : 'yes',
  })
}
console.table(table)
// LMT_BENCH_OPTIMIZER=<binary> (test/bench/optimizer/README.md): the Mooncake cases beside the real Optimizer
const optimizer = process.env.LMT_BENCH_OPTIMIZER
if (optimizer) console.table(sideBySide(optimizer, mooncake, dir))
if (table.some((r) => r.met === 'NO')) {
  console.log('simulate-e2e: a target was missed on this machine (see the CPU column on a loaded one)')
  process.exitCode = 1
}
