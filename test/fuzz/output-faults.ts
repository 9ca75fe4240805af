// Seeded fault cases around the places lmt writes, through the built CLI in child processes, for every command that
// writes a file (convert, convert --mode lct, simulate -o, report -o, replay --output-dir/--record/--jsonl-out):
//   concurrent  two or three runs writing one output set at once (an earlier set there, or none);
//   link        a symbolic or hard link (or a dangling one) planted at an output's path, at a fixed temporary name
//               older lmt versions used (`<out>.tmp`, `.lmt-new.<name>.tmp`, …) or at the folder lock's name;
//   same-file   an output that is the input by device and inode: a link to it at the output's path, or the input
//               itself at that path;
//   storm       a conversion of equal timestamps (most rows in one second), one to four copies of one input.
// Every case asserts: nothing outside the output folder changed (a victim folder, the links' targets), the inputs
// kept their bytes, the output folder holds one complete output set of one run (or none, or the earlier one) with
// the exit codes saying so (a coded error in the --json document otherwise), and no temporary, backup or lock of lmt
// is left. A broken assertion is a Finding naming the case.
import {spawn} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {join, relative} from 'node:path'
import {BIN, FIXTURES} from '../helpers/cli.js'
import {keys, LAYOUT, type Rec, writeTrace} from '../replay/helpers.js'
import type {TargetFigures} from './campaign.js'
import type {Random} from './random.js'
import {Finding} from './targets.js'

export const FAMILIES = ['concurrent', 'link', 'same-file', 'storm'] as const
export type Family = (typeof FAMILIES)[number]

/** The inputs of one variant (full paths) and the case's output folder. */
interface Io {
  inputs: string[]
  out: string
}

/** A command that writes a set of files into one output folder. */
export interface Writer {
  name: string
  /** the names of its output set in the output folder */
  set: string[]
  /** runs that differ in what they write (their sets tell them apart) */
  variants: number
  /** the input files of variant `v`, by name in the inputs folder */
  inputs(v: number): string[]
  args(v: number, io: Io): string[]
  /** a set that is present whole is compared by this text (what varies between runs masked) */
  signature(out: string, masks: string[]): string
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex').slice(0, 16)
const read = (out: string, name: string) => readFileSync(join(out, name))
const masked = (text: string, masks: string[]) => masks.reduce((t, m) => t.replaceAll(m, '<DIR>'), text)

const LCT_FLAGS = ['--kv-layout', '2x4x16x2x64:bfloat16', '--l1-size-gb', '1', '--eviction-policy', 'LRU']
const REPLAY_FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU']
const CONVERT_INPUTS: Array<[string, string]> = [
  ['qwen.jsonl', 'qwen_bailian'],
  ['mooncake.jsonl', 'mooncake'],
]

export const WRITERS: Writer[] = [
  {
    name: 'convert',
    set: ['out.jsonl'],
    variants: 2,
    inputs: (v) => [CONVERT_INPUTS[v][0]],
    args: (v, io) => [
      'convert',
      '-i',
      io.inputs[0],
      '-f',
      CONVERT_INPUTS[v][1],
      '-o',
      join(io.out, 'out.jsonl'),
    ],
    signature: (out) => sha(read(out, 'out.jsonl')),
  },
  {
    name: 'convert-lct',
    set: ['out.lct'],
    variants: 2,
    inputs: (v) => [CONVERT_INPUTS[v][0]],
    args: (v, io) => [
      'convert',
      '-i',
      io.inputs[0],
      '-f',
      CONVERT_INPUTS[v][1],
      '--mode',
      'lct',
      ...LCT_FLAGS,
      '-o',
      join(io.out, 'out.lct'),
    ],
    signature: (out) => sha(read(out, 'out.lct')),
  },
  {
    name: 'simulate',
    set: ['a_hit_rates.csv', 'b_hit_rates.csv', 'summary.json'],
    variants: 2,
    inputs: () => ['gw.jsonl'],
    args: (v, io) => [
      'simulate',
      '--trace',
      io.inputs[0],
      '--block-size',
      '4',
      '--capacity-blocks',
      ['20', '200'][v],
      '-o',
      io.out,
    ],
    signature(out, masks) {
      const summary = masked(read(out, 'summary.json').toString(), masks).replace(
        /"(\w+_seconds|\w+_per_second|peak_rss_bytes)": [\d.e+-]+/g,
        '"$1": 0',
      )
      return [sha(read(out, 'a_hit_rates.csv')), sha(read(out, 'b_hit_rates.csv')), sha(summary)].join(' ')
    },
  },
  {
    name: 'report',
    set: ['r.html'],
    variants: 2,
    inputs: () => ['gw.jsonl'],
    args: (v, io) => [
      'report',
      '--trace',
      io.inputs[0],
      '--block-size',
      '4',
      '--points',
      ['3', '4'][v],
      '--policies',
      'lru',
      '-o',
      join(io.out, 'r.html'),
    ],
    signature: (out, masks) => sha(masked(read(out, 'r.html').toString(), masks)),
  },
  {
    name: 'replay',
    set: ['log.jsonl', 'rec.lct', 'trace_replay_ops.csv', 'trace_replay_summary.json'],
    variants: 2,
    inputs: (v) => [['a.lct', 'b.lct'][v]],
    args: (v, io) => [
      'replay',
      io.inputs[0],
      ...REPLAY_FLAGS,
      '--output-dir',
      io.out,
      '--record',
      join(io.out, 'rec.lct'),
      '--jsonl-out',
      join(io.out, 'log.jsonl'),
    ],
    // latencies are measured: the record file whole, the rest by what was replayed (qualnames, counts, failures)
    signature(out) {
      const log = read(out, 'log.jsonl')
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const o = JSON.parse(l) as {qualname: string; failed: boolean}
          return `${o.qualname}:${o.failed}`
        })
      const csv = read(out, 'trace_replay_ops.csv')
        .toString()
        .split('\r\n')
        .filter(Boolean)
        .map((row) => row.split(',').slice(0, 3).join(','))
      const summary = JSON.parse(read(out, 'trace_replay_summary.json').toString()) as {
        model: unknown
        ops: Record<string, {count: number; errors: number}>
      }
      const ops = Object.entries(summary.ops).map(([q, o]) => `${q}:${o.count}:${o.errors}`)
      return [sha(read(out, 'rec.lct')), sha(log.join('\n')), sha(csv.join('\n')), sha(ops.join('\n'))].join(
        ' ',
      )
    },
  },
]

/** The inputs every case copies from: small, made once per campaign. */
export function prepareInputs(dir: string): void {
  mkdirSync(dir, {recursive: true})
  copyFileSync(join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl'), join(dir, 'qwen.jsonl'))
  copyFileSync(join(FIXTURES, 'convert', 'mooncake_conversation_head200.jsonl'), join(dir, 'mooncake.jsonl'))
  // a Get+Write trace of two instances (a and b), 3,000 rows
  const lines: string[] = []
  let seed = 7
  const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
  for (let t = 1; t <= 3000; t++) {
    const ks = Array.from({length: 1 + rand(6)}, () => rand(300))
    const inst = rand(2) ? 'a' : 'b'
    lines.push(
      JSON.stringify(
        rand(3) === 0
          ? {type: 'write', instance_id: inst, timestamp_ns: t, keys: ks}
          : {type: 'get', instance_id: inst, timestamp_ns: t, keys: ks, input_len: ks.length * 4},
      ),
    )
  }
  writeFileSync(join(dir, 'gw.jsonl'), lines.join('\n') + '\n')
  // two storage traces of different lengths: every output of a replay tells which one it replayed
  for (const [name, n] of [
    ['a.lct', 1500],
    ['b.lct', 1000],
  ] as const) {
    const recs: Rec[] = []
    for (let i = 0; i < n; i++)
      recs.push(
        [i * 0.01, 'reserve_write', {keys: keys(i % 200), layout_desc: LAYOUT, mode: 'new'}],
        [i * 0.01 + 0.005, 'finish_write', {keys: keys(i % 200)}],
      )
    writeTrace(join(dir, name), recs)
  }
}

interface RunResult {
  code: number | null
  signal: string | null
  stdout: string
  stderr: string
}

function runLmt(args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, '-q', '--json'], {
      env: {...process.env, NO_COLOR: '1'},
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stdout, stderr})
    })
  })
}

/** The coded error of a run's --json document, '' for a success; a string starting with '!' for a broken run. */
function outcome(r: RunResult): string {
  if (r.code === null) return `!ended by ${r.signal} (${r.stderr.slice(0, 200)})`
  if (/Maximum call stack|RangeError|TypeError|Unhandled|at .*\.js:\d+/.test(r.stderr))
    return `!stack trace or uncaught error on stderr: ${r.stderr.slice(0, 300)}`
  let doc: {error?: {code?: string; exitCode?: number}}
  try {
    doc = JSON.parse(r.stdout)
  } catch {
    return `!stdout is not one JSON document (exit ${r.code}): ${r.stdout.slice(0, 200)} ${r.stderr.slice(0, 200)}`
  }
  if (r.code === 0) return doc.error ? `!exit 0 with an error document ${JSON.stringify(doc.error)}` : ''
  const code = doc.error?.code
  if (!code) return `!exit ${r.code} without an error document`
  if (/INTERNAL/.test(code)) return `!${code}: ${JSON.stringify(doc.error)}`
  if (doc.error?.exitCode !== r.code) return `!exit ${r.code} but the document says ${doc.error?.exitCode}`
  return code
}

/** What a folder holds, by relative path: a file's digest, a link's target, a folder. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n)
      const st = lstatSync(p)
      const key = relative(dir, p)
      if (st.isSymbolicLink()) out[key] = `link ${readlinkSync(p)}`
      else if (st.isDirectory()) {
        out[key] = 'folder'
        walk(p)
      } else out[key] = `file ${sha(readFileSync(p))}`
    }
  }
  if (existsSync(dir)) walk(dir)
  return out
}

/** lmt's temporaries, backups, locks and conversion folders in `dir`. */
export function lmtLeftovers(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter(
    (n) =>
      /\.lmt-tmp-\d+-[0-9a-f]{12}$/.test(n) ||
      /\.lmt-old-/.test(n) ||
      n === '.lmt-lock' ||
      n.startsWith('.lmt-convert-'),
  )
}

export interface OutputCase {
  family: Family
  writer: Writer
  /** concurrent: the variant of each run; otherwise the one run's */
  variants: number[]
  /** concurrent: the variant whose set is already there (undefined: none) */
  old?: number
  /** link: where, and what kind */
  plant?: {name: string; kind: 'symlink' | 'hardlink' | 'dangling'}
  /** same-file: which output is the input, and how */
  same?: {name: string; how: 'symlink' | 'hardlink' | 'inside'}
  /** storm: rows, copies and the seconds their timestamps come from */
  storm?: {rows: number; copies: number; seconds: number[]}
}

function plantNames(writer: Writer, rng: Random): string {
  const n = rng.pick(writer.set)
  return rng.pick([
    n,
    n,
    `${n}.tmp`,
    `.${n}.tmp`,
    `.lmt-new.${n}.tmp`,
    `.lmt-new.${n}`,
    `.${n}.lmt-tmp-${1000 + rng.int(60000)}-${'0'.repeat(12)}`,
    '.lmt-lock',
  ])
}

/** Case `i` of a seeded run: the families in turn, the rest drawn from `rng`. */
export function drawCase(rng: Random, i: number, long: boolean): OutputCase {
  const family = FAMILIES[i % FAMILIES.length]
  const writer = rng.pick(WRITERS)
  const variant = () => rng.int(writer.variants)
  switch (family) {
    case 'concurrent':
      return {
        family,
        writer,
        variants: Array.from({length: rng.chance(0.3) ? 3 : 2}, variant),
        old: rng.chance(0.4) ? variant() : undefined,
      }
    case 'link':
      return {
        family,
        writer,
        variants: [variant()],
        plant: {name: plantNames(writer, rng), kind: rng.pick(['symlink', 'hardlink', 'dangling'] as const)},
      }
    case 'same-file':
      return {
        family,
        writer,
        variants: [variant()],
        same: {name: rng.pick(writer.set), how: rng.pick(['symlink', 'hardlink', 'inside'] as const)},
      }
    default:
      return {
        family,
        writer: WRITERS[0],
        variants: [0],
        storm: {
          rows: long ? 2000 + rng.int(30_000) : 500 + rng.int(1500),
          copies: 1 + rng.int(4),
          seconds: Array.from({length: 1 + rng.int(4)}, () => 1 + rng.int(6)),
        },
      }
  }
}

export function describeCase(c: OutputCase): string {
  const parts = [`${c.family} ${c.writer.name} variants ${c.variants.join(',')}`]
  if (c.old !== undefined) parts.push(`over the set of variant ${c.old}`)
  if (c.plant) parts.push(`${c.plant.kind} at ${c.plant.name}`)
  if (c.same) parts.push(`${c.same.how}: ${c.same.name} is the input`)
  if (c.storm) parts.push(`${c.storm.rows} rows × ${c.storm.copies} in seconds ${c.storm.seconds.join(',')}`)
  return parts.join(', ')
}

/** Runs the seeded cases; references (each variant's set written alone) are made once in `dir` and reused. */
export class OutputFaults {
  private readonly refs = new Map<string, string>()
  private readonly inputs: string
  private serial = 0

  constructor(
    private readonly dir: string,
    private readonly timeoutMs = 120_000,
  ) {
    this.inputs = join(dir, 'inputs')
    prepareInputs(this.inputs)
  }

  /** The signature of variant `v`'s set written alone (its folder under refs/ holds the set). */
  private async reference(w: Writer, v: number): Promise<string> {
    const key = `${w.name}-${v}`
    const known = this.refs.get(key)
    if (known !== undefined) return known
    const out = join(this.dir, 'refs', key)
    mkdirSync(out, {recursive: true})
    const r = await runLmt(
      w.args(v, {inputs: w.inputs(v).map((n) => join(this.inputs, n)), out}),
      this.timeoutMs,
    )
    if (outcome(r) !== '') throw new Error(`${key} alone: ${outcome(r)} ${r.stderr}`)
    const sig = w.signature(out, [out, this.inputs])
    this.refs.set(key, sig)
    return sig
  }

  /** Runs one case; its outcome (`ok`, or the coded errors the runs ended with), or a Finding. */
  async run(c: OutputCase): Promise<string> {
    const root = join(this.dir, `case-${++this.serial}`)
    const inDir = join(root, 'in')
    const out = join(root, 'out')
    const outside = join(root, 'outside')
    mkdirSync(inDir, {recursive: true})
    mkdirSync(out, {recursive: true})
    mkdirSync(outside, {recursive: true})
    writeFileSync(join(outside, 'victim'), 'VICTIM\n')
    const w = c.writer
    const what = describeCase(c)
    const fail = (message: string): never => {
      throw new Finding(`output-faults ${w.name}`, `${what}: ${message}`, Buffer.from(what))
    }
    try {
      for (const v of new Set(c.variants))
        for (const n of w.inputs(v)) copyFileSync(join(this.inputs, n), join(inDir, n))
      let inputsOf = (v: number) => w.inputs(v).map((n) => join(inDir, n))
      if (c.storm) {
        writeFileSync(join(inDir, 'storm.jsonl'), stormInput(c.storm))
        inputsOf = () => Array.from({length: c.storm!.copies}, () => join(inDir, 'storm.jsonl'))
      }
      const refDirs = Array.from({length: w.variants}, (_, v) => join(this.dir, 'refs', `${w.name}-${v}`))
      const masks = [out, inDir, this.inputs, ...refDirs]
      let expected: Array<string | undefined> = []
      let oldSig: string | undefined
      if (c.family === 'concurrent') {
        expected = await Promise.all(c.variants.map((v) => this.reference(w, v)))
        if (c.old !== undefined) {
          oldSig = await this.reference(w, c.old)
          cpSync(join(this.dir, 'refs', `${w.name}-${c.old}`), out, {recursive: true})
        }
      }
      if (c.plant) plant(c.plant, out, outside)
      if (c.same) {
        const target = join(inDir, w.inputs(c.variants[0])[0])
        const at = join(out, c.same.name)
        if (c.same.how === 'symlink') symlinkSync(target, at)
        else if (c.same.how === 'hardlink') linkSync(target, at)
        else {
          copyFileSync(target, at)
          rmSync(target)
          inputsOf = () => [at]
        }
      }
      const inputFiles = [...new Set(c.variants.flatMap((v) => inputsOf(v)))]
      const inputsBefore = inputFiles.map((f) => sha(readFileSync(f)))
      const outsideBefore = snapshot(outside)
      const inBefore = snapshot(inDir)
      const plantedBefore = c.plant ? lstatSync(join(out, c.plant.name), {throwIfNoEntry: false}) : undefined

      const args = (v: number) =>
        c.storm
          ? ['convert', '-i', ...inputsOf(v), '-f', 'qwen_bailian', '-o', join(out, 'out.jsonl')]
          : w.args(v, {inputs: inputsOf(v), out})
      const started = performance.now()
      const runs = await Promise.all(c.variants.map((v) => runLmt(args(v), this.timeoutMs)))
      const ms = performance.now() - started
      const outcomes = runs.map(outcome)
      for (const o of outcomes) if (o.startsWith('!')) fail(o.slice(1))

      // nothing outside the output folder changed; the inputs kept their bytes; nothing of lmt's left
      const outsideAfter = snapshot(outside)
      if (JSON.stringify(outsideAfter) !== JSON.stringify(outsideBefore))
        fail(
          `outside the output folder: ${JSON.stringify(outsideBefore)} became ${JSON.stringify(outsideAfter)}`,
        )
      if (c.same?.how !== 'inside' && JSON.stringify(snapshot(inDir)) !== JSON.stringify(inBefore))
        fail('the inputs folder changed')
      inputFiles.forEach((f, k) => {
        if (!existsSync(f) || sha(readFileSync(f)) !== inputsBefore[k]) fail(`input ${f} lost its bytes`)
      })
      const left = lmtLeftovers(out).filter((n) => n !== c.plant?.name)
      if (left.length > 0) fail(`left behind: ${left.join(', ')}`)

      const present = w.set.filter((n) => {
        const st = lstatSync(join(out, n), {throwIfNoEntry: false})
        return (
          st !== undefined && !(c.plant?.name === n && c.plant.kind === 'dangling' && st.isSymbolicLink())
        )
      })
      const whole = present.length === w.set.length
      const successes = c.variants.filter((_, k) => outcomes[k] === '')

      if (c.family === 'same-file') {
        for (const o of outcomes)
          if (!/OUTPUT_IS_INPUT$/.test(o)) fail(`expected an OUTPUT_IS_INPUT error, got ${o || 'success'}`)
        if (runs[0].code !== 2) fail(`exit ${runs[0].code}, expected 2`)
        const others = present.filter((n) => n !== c.same!.name)
        if (others.length > 0) fail(`refused, yet wrote ${others.join(', ')}`)
        return outcomes[0]
      }
      if (c.family === 'storm') {
        if (outcomes[0] !== '') fail(`the conversion failed: ${outcomes[0]}`)
        checkStorm(c.storm!, readFileSync(join(out, 'out.jsonl'), 'utf8'), fail)
        return `ok ${Math.round(ms / 100) / 10} s`
      }
      if (successes.length === 0) {
        // every run failed (a coded error): the set is the earlier one, or none
        if (c.family === 'link' && c.plant?.name !== '.lmt-lock')
          fail(`failed with ${outcomes.join(', ')} where a planted link should change nothing`)
        if (oldSig !== undefined ? w.signature(out, masks) !== oldSig : present.length > 0)
          fail(`every run failed (${outcomes.join(', ')}) yet the set changed`)
        return outcomes.join(',')
      }
      if (!whole) fail(`${successes.length} run(s) succeeded but the set has only ${present.join(', ')}`)
      for (const n of w.set)
        if (!lstatSync(join(out, n)).isFile()) fail(`${n} is not a regular file after the run`)
      const sig = w.signature(out, masks)
      if (c.family === 'concurrent') {
        const allowed = c.variants.map((v, k) => (outcomes[k] === '' ? expected[k] : undefined))
        if (!allowed.includes(sig)) fail('the set is no successful run’s set (a mix, or another run’s)')
      }
      if (c.plant && plantedBefore?.isSymbolicLink() && !w.set.includes(c.plant.name)) {
        const after = lstatSync(join(out, c.plant.name), {throwIfNoEntry: false})
        if (!after?.isSymbolicLink()) fail(`the link planted at ${c.plant.name} was replaced or removed`)
      }
      if (c.plant?.kind === 'dangling' && existsSync(join(outside, 'nothing-here')))
        fail('the dangling link’s target was created')
      return outcomes.every((o) => o === '') ? 'ok' : outcomes.join(',')
    } finally {
      rmSync(root, {recursive: true, force: true})
    }
  }
}

function plant(p: NonNullable<OutputCase['plant']>, out: string, outside: string): void {
  const at = join(out, p.name)
  if (p.kind === 'symlink') symlinkSync(join(outside, 'victim'), at)
  else if (p.kind === 'hardlink') linkSync(join(outside, 'victim'), at)
  else symlinkSync(join(outside, 'nothing-here'), at)
}

/** qwen_bailian rows whose timestamps come from a few whole seconds, most of them from the first. */
export function stormInput(s: NonNullable<OutputCase['storm']>): string {
  const lines: string[] = []
  let seed = s.rows * 31 + s.seconds[0]
  const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
  for (let i = 0; i < s.rows; i++) {
    const ts = rand(10) < 7 ? s.seconds[0] : s.seconds[rand(s.seconds.length)]
    lines.push(`{"timestamp": ${ts}, "input_length": 40, "hash_ids": [${rand(50)}, ${i}]}\n`)
  }
  return lines.join('')
}

/** Every row gave a get and a write; timestamps unique (one instance), sorted, none before its row's second. */
function checkStorm(s: NonNullable<OutputCase['storm']>, text: string, fail: (m: string) => never): void {
  const lines = text.split('\n').filter(Boolean)
  if (lines.length !== 2 * s.rows * s.copies)
    fail(`${lines.length} output lines for ${s.rows} rows × ${s.copies} copies (2 each)`)
  const first = BigInt(Math.min(...s.seconds)) * 1_000_000_000n
  let last = -1n
  for (const l of lines) {
    const ts = BigInt(/"timestamp_ns": (\d+)/.exec(l)?.[1] ?? '-1')
    if (ts <= last) fail(`timestamp ${ts} after ${last}: not unique and increasing`)
    if (ts < first) fail(`timestamp ${ts} before the first second of the input`)
    last = ts
  }
}

/** Runs `n` seeded cases (the families in turn); outcomes by family and kind, findings. */
export async function outputFaultChecks(
  rng: Random,
  n: number,
  dir: string,
  long = false,
): Promise<{figures: TargetFigures; findings: Finding[]}> {
  const figures: TargetFigures = {inputs: 0, outcomes: {}, lines: {}, findings: 0, ms: 0}
  const findings: Finding[] = []
  const faults = new OutputFaults(join(dir, 'output-faults'))
  for (let i = 0; i < n; i++) {
    const c = drawCase(rng, i, long)
    const t0 = performance.now()
    let kind: string
    try {
      kind = `${c.family} ${c.writer.name}: ${(await faults.run(c)).replace(/ [\d.]+ s$/, '')}`
    } catch (err) {
      if (!(err instanceof Finding)) throw err
      findings.push(err)
      figures.findings++
      kind = 'finding'
    }
    figures.ms += performance.now() - t0
    figures.inputs++
    figures.outcomes[kind] = (figures.outcomes[kind] ?? 0) + 1
  }
  return {figures, findings}
}
