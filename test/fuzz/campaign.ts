// A fuzz campaign: seeded inputs through every target, round-robin, bounded in count and time; outcomes counted
// by kind, findings collected (one per distinct message) and saved, heap sampled.
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {cliChecks} from './cli-checks.js'
import {outputFaultChecks} from './output-faults.js'
import {Random} from './random.js'
import {allTargets, Finding, type Target} from './targets.js'

export interface CampaignOptions {
  seed: number
  /** inputs per target */
  count: number
  /** the whole campaign's time budget; targets share it round-robin */
  timeMs: number
  /** names (or prefixes, e.g. `convert`) of the targets to run; all when empty */
  targets?: string[]
  /** inputs through the built CLI in child processes (a handful: each costs a process start) */
  cliRuns?: number
  /**
   * seeded output-fault cases through the built CLI (output-faults.ts: concurrent writers, planted links, same-file
   * outputs, timestamp storms), the families in turn
   */
  outputRuns?: number
  /** output-fault cases with larger storms */
  long?: boolean
  /** where failing inputs are written (`<target>-<n>.bin` and `.txt`) */
  findingsDir?: string
  onProgress?(line: string): void
}

export interface TargetFigures {
  inputs: number
  /** `result` or the coded error's kind → count */
  outcomes: Record<string, number>
  /** conversions: lines by fate (`converted`, `skipped:too_deep`, …) summed over the inputs */
  lines: Record<string, number>
  findings: number
  ms: number
}

export interface CampaignSummary {
  seed: number
  inputs: number
  byTarget: Record<string, TargetFigures>
  /** one per distinct message */
  findings: Finding[]
  heapMb: {start: number; max: number; end: number}
  elapsedMs: number
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10

function heapNow(): number {
  ;(globalThis as {gc?: () => void}).gc?.()
  return process.memoryUsage().heapUsed
}

function selected(targets: Target[], names: string[] | undefined): Target[] {
  if (!names || names.length === 0) return targets
  const out = targets.filter((t) => names.some((n) => t.name === n || t.name.startsWith(`${n}:`)))
  if (out.length === 0)
    throw new Error(
      `no target matches ${names.join(', ')}; targets: ${targets.map((t) => t.name).join(', ')}`,
    )
  return out
}

/** Keeps a finding (once per distinct first line, digits aside) and saves its input. */
function record(summary: CampaignSummary, seen: Set<string>, f: Finding, dir: string | undefined): void {
  const signature = f.message.split('\n')[0].replace(/\d+/g, 'N')
  if (seen.has(signature)) return
  seen.add(signature)
  summary.findings.push(f)
  if (!dir) return
  mkdirSync(dir, {recursive: true})
  const base = join(dir, `${f.target.replace(/[^a-z0-9_-]/gi, '_')}-${summary.findings.length}`)
  writeFileSync(`${base}.bin`, f.input)
  writeFileSync(`${base}.txt`, f.message + '\n')
}

function nameHash(name: string): number {
  let h = 0
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 1_000_003
  return h
}

/** One saved input through the named targets (a finding's `.bin`): each outcome kind, or the finding's message. */
export async function replayInput(input: Buffer, names: string[]): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'lmt-fuzz-'))
  try {
    const out: string[] = []
    for (const t of selected(await allTargets(scratch, new Random(1)), names)) {
      try {
        out.push(`${t.name}: ${(await t.run(input, new Random(1))).kind}`)
      } catch (err) {
        if (!(err instanceof Finding)) throw err
        out.push(`${t.name}: finding: ${err.message}`)
      }
    }
    return out
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
}

/** Runs the campaign; never throws for a finding (they are in the summary). */
export async function runCampaign(opts: CampaignOptions): Promise<CampaignSummary> {
  const started = performance.now()
  const scratch = mkdtempSync(join(tmpdir(), 'lmt-fuzz-'))
  const heapStart = heapNow()
  const summary: CampaignSummary = {
    seed: opts.seed,
    inputs: 0,
    byTarget: {},
    findings: [],
    heapMb: {start: mb(heapStart), max: mb(heapStart), end: 0},
    elapsedMs: 0,
  }
  const seen = new Set<string>()
  try {
    const targets = selected(await allTargets(scratch, new Random(opts.seed)), opts.targets)
    // each target draws from its own generator: its inputs do not depend on which other targets run
    const rngs = targets.map((t) => new Random(opts.seed + nameHash(t.name)))
    for (const t of targets)
      summary.byTarget[t.name] = {inputs: 0, outcomes: {}, lines: {}, findings: 0, ms: 0}
    const deadline = started + opts.timeMs
    for (let i = 0; i < opts.count && performance.now() < deadline; i++) {
      for (let k = 0; k < targets.length; k++) {
        const t = targets[k]
        if (t.every !== undefined && i % t.every !== 0) continue
        const figures = summary.byTarget[t.name]
        const input = t.input(rngs[k])
        const t0 = performance.now()
        try {
          const {kind, lines} = await t.run(input, rngs[k])
          figures.outcomes[kind] = (figures.outcomes[kind] ?? 0) + 1
          for (const [fate, n] of Object.entries(lines ?? {}))
            figures.lines[fate] = (figures.lines[fate] ?? 0) + n
        } catch (err) {
          if (!(err instanceof Finding)) throw err
          figures.findings++
          figures.outcomes.finding = (figures.outcomes.finding ?? 0) + 1
          record(summary, seen, err, opts.findingsDir)
        }
        figures.ms += performance.now() - t0
        figures.inputs++
        summary.inputs++
      }
      if (i % 50 === 49) {
        summary.heapMb.max = Math.max(summary.heapMb.max, mb(process.memoryUsage().heapUsed))
        opts.onProgress?.(`${i + 1} inputs per target, ${summary.findings.length} findings`)
      }
    }
    if (opts.cliRuns) {
      const cli = await cliChecks(new Random(opts.seed), opts.cliRuns, scratch)
      summary.byTarget.cli = cli.figures
      summary.inputs += cli.figures.inputs
      for (const f of cli.findings) record(summary, seen, f, opts.findingsDir)
    }
    if (opts.outputRuns) {
      const faults = await outputFaultChecks(new Random(opts.seed), opts.outputRuns, scratch, opts.long)
      summary.byTarget['output-faults'] = faults.figures
      summary.inputs += faults.figures.inputs
      for (const f of faults.findings) record(summary, seen, f, opts.findingsDir)
    }
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
  summary.heapMb.end = mb(heapNow())
  summary.heapMb.max = Math.max(summary.heapMb.max, summary.heapMb.end)
  summary.elapsedMs = Math.round(performance.now() - started)
  return summary
}

/** The campaign's figures as text lines. */
export function renderSummary(s: CampaignSummary): string[] {
  const lines = [`fuzz: seed ${s.seed}, ${s.inputs} inputs in ${(s.elapsedMs / 1000).toFixed(1)} s`]
  for (const [name, f] of Object.entries(s.byTarget)) {
    const outcomes = Object.entries(f.outcomes)
      .sort(([, a], [, b]) => b - a)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')
    lines.push(`  ${name}: ${f.inputs} inputs (${(f.ms / 1000).toFixed(1)} s): ${outcomes}`)
    const fates = Object.entries(f.lines).sort(([, a], [, b]) => b - a)
    if (fates.length > 0) lines.push(`    lines: ${fates.map(([k, n]) => `${k} ${n}`).join(', ')}`)
  }
  lines.push(`  heap: start ${s.heapMb.start} MB, max ${s.heapMb.max} MB, end ${s.heapMb.end} MB`)
  lines.push(`  findings: ${s.findings.length} distinct`)
  for (const f of s.findings) lines.push(`    ${f.message.split('\n')[0]}`)
  return lines
}
