// `npm run bench:startup`: how soon lmt is ready to work. Each case runs as a fresh process, median of
// 7 runs after a warm-up; the CPU time (user + system) is shown beside the wall time because on a loaded machine
// the wall time mostly measures the wait for a core. Exits 1 when a median wall time is over the target, which
// LMT_BENCH_MAX_STARTUP_MS can raise on a slow machine.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {type LmtRun, runLmt} from './harness.mjs'

const dir = mkdtempSync(join(tmpdir(), 'lmt-bench-startup-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
// a one-row trace: the simulate case measures start-up, configuration and outputs, not replay
const trace = join(dir, 'one.jsonl')
writeFileSync(trace, '{"type": "get", "instance_id": "i", "timestamp_ns": 0, "keys": [1], "input_len": 16}\n')
const cases: Array<{name: string; args: string[]}> = [
  {name: 'lmt --version', args: ['--version']},
  {name: 'lmt simulate --help', args: ['simulate', '--help']},
  {
    name: 'lmt simulate (one row)',
    args: ['simulate', '--trace', trace, '--capacity-blocks', '8', '-o', join(dir, 'out'), '--no-plots'],
  },
  {name: 'lmt trace info --help', args: ['trace', 'info', '--help']},
]
const target = Number(process.env.LMT_BENCH_MAX_STARTUP_MS ?? 200) / 1000
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const table = []
for (const {name, args} of cases) {
  runLmt(args) // warm-up (the page cache)
  const runs: LmtRun[] = Array.from({length: 7}, () => runLmt(args))
  const wall = median(runs.map((r) => r.seconds))
  table.push({
    case: name,
    wall: `${(wall * 1000).toFixed(0)} ms`,
    cpu: `${(median(runs.map((r) => r.cpuSeconds)) * 1000).toFixed(0)} ms`,
    target: `≤ ${(target * 1000).toFixed(0)} ms`,
    met: wall <= target ? 'yes' : 'NO',
    peakRssMb: median(runs.map((r) => r.rssMb)).toFixed(0),
  })
}
console.table(table)
if (table.some((r) => r.met === 'NO')) {
  console.log('startup: a start-up target was missed on this machine (see the CPU column on a loaded one)')
  process.exitCode = 1
}
