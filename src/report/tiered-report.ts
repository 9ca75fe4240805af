// `lmt report` of a tiered configuration (a group with a tier_strategy): simulate's tiered sweep, asked for through
// simulate's door as `lmt simulate CONFIG --sweep` asks for it, its outputs written to a temporary folder that is
// removed; the summary read back as the answer: the hit rate against the swept tier's capacity, in total and per
// tier, and the share of the hit rate each tier serves at one capacity.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, join} from 'node:path'
import {type Characterization, characterize} from './characterize.js'
import {answerGroupIndex} from './report.js'
import {loadInput, type LoadRequest} from './load.js'
import {TimeBins} from './time-bins.js'
import {
  type Notice,
  readConfigFile,
  simulate,
  type SimulateProgress,
  type SweepRequest,
} from '../simulate/index.js'

/** The trace and configuration as the untiered report reads them (LoadRequest), and the sweep's settings. */
export interface TieredReportRequest extends LoadRequest {
  config: string
  /** the capacity of the swept tier the answer is given at (GiB); default the smallest point at 90 % of the ceiling */
  capacityGb?: number
  /** the storage whose capacity varies (default: the one `lmt simulate --sweep` varies) */
  storage?: string
  group?: string
  points: number
  seed: bigint
  jobs?: number
  version: string
  onProgress?(p: {phase: string; done: number; total: number}): void
}

interface TierShare {
  tier: string
  hit_tokens: number
  token_hit_rate: number
  final_blocks: number
}

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const LEFT_OUT = [
  {
    section: 'Belady (next need) reference',
    reason: 'it models one cache evicting by next use, not tiers with write modes and promotion',
  },
  {
    section: 'one-pass stack method',
    reason: 'it models one LRU cache, so every point of a tiered sweep is replayed',
  },
  {
    section: 'other policies',
    reason: "a tiered group plays its configuration's own policy in every tier (--policies does not apply)",
  },
]

/** One `lmt simulate CONFIG --sweep` through simulate's door; its summary document. */
async function sweep(req: TieredReportRequest, sw: SweepRequest, phase: string): Promise<Json> {
  const out = mkdtempSync(join(tmpdir(), 'lmt-report-tiers-'))
  try {
    const outcome = await simulate({
      configPath: req.config,
      flags: {
        trace: req.trace,
        outputDir: out,
        blockSize: req.blockSize,
        bytesPerToken: req.bytesPerToken,
        replayMode: req.replayMode,
        writeDelayNs: req.writeDelayNs,
      },
      seed: req.seed,
      skipInvalid: req.skipInvalid,
      strictInstances: false,
      plots: false,
      oracle: 'none',
      sweep: sw,
      keepPointCsv: false,
      jobs: req.jobs,
      version: req.version,
      onProgress: (p: SimulateProgress) => {
        if (p.points) req.onProgress?.({phase, done: p.points.done, total: p.points.total})
        else if (p.step) req.onProgress?.({phase: p.step.label, done: p.step.done, total: p.step.total})
        else req.onProgress?.({phase: 'reading the trace', done: p.bytes, total: p.total})
      },
    })
    const summary = outcome.summary as Json
    // the temporary folder is the report's business, not the reader's
    summary.notices = (summary.notices as Notice[]).filter((n) => !n.message.includes(out))
    return summary
  } finally {
    rmSync(out, {recursive: true, force: true})
  }
}

/** The sweep's points with their totals: every hit is served by exactly one tier, so the tiers add up to it. */
function pointsOf(summary: Json, inputTokens: number) {
  return (summary.sweep.points as Json[]).map((p) => {
    const tiers = (p.tiers as TierShare[]).map((t) => ({...t}))
    const hit = tiers.reduce((a, t) => a + t.hit_tokens, 0)
    return {
      capacity_gb: p.capacity_gb as number,
      hit_tokens: hit,
      token_hit_rate: inputTokens > 0 ? hit / inputTokens : 0,
      tiers,
    }
  })
}

/** The group the answer is for, in the report's words (--group), before any play. */
async function checkGroup(req: TieredReportRequest): Promise<void> {
  const groups = (await readConfigFile(req.config)).raw.instance_groups
  answerGroupIndex(
    (Array.isArray(groups) ? groups : []).map((g: Json) => String(g?.group_name)),
    req.group,
  )
}

/** The trace's profiles, as the untiered report has them: its rows read as the tiered play reads them. */
async function characterizeTrace(req: TieredReportRequest): Promise<Characterization> {
  const input = await loadInput({
    ...req,
    tiered: true,
    onBytes: (done, total) => req.onProgress?.({phase: 'reading the trace', done, total}),
  })
  req.onProgress?.({phase: 'characterizing', done: 0, total: 1})
  const {rows, config} = input
  const bins = new TimeBins(rows[0].ts, rows[rows.length - 1].ts)
  const described = new Map([...input.blockSizes].map(([id, c]) => [id, c.blockSize] as const))
  return characterize(rows, config, described, bins)
}

/** Builds the tiered report document. */
export async function buildTieredReport(req: TieredReportRequest) {
  const started = performance.now()
  await checkGroup(req)
  const base = {points: req.points, unit: 'fraction' as const, group: req.group, storage: req.storage}
  const summary = await sweep(req, base, 'replaying capacities')
  const group = summary.sweep.group_name as string
  const totals = (summary.groups as Json[]).find((g) => g.group_name === group)?.totals as Json
  const inputTokens = totals.input_tokens as number
  const points = pointsOf(summary, inputTokens)
  const infRate = (summary.oracles.infinite as Json[])[0].token_hit_rate as number
  const tiers = summary.sweep.tiers as Json
  let chosen: TieredPoint & {source: 'flag' | 'ceiling_90' | 'largest'}
  if (req.capacityGb !== undefined) {
    const at = await sweep(
      req,
      {...base, points: 1, unit: 'gib', capacities: [req.capacityGb]},
      'the chosen capacity',
    )
    // the capacity asked for, not its six significant digits in the sweep's summary
    chosen = {...pointsOf(at, inputTokens)[0], capacity_gb: req.capacityGb, source: 'flag'}
  } else {
    const reached = tiers.infinite_is_ceiling
      ? points.find((p) => p.token_hit_rate >= 0.9 * infRate)
      : undefined
    chosen = reached ? {...reached, source: 'ceiling_90'} : {...points[points.length - 1], source: 'largest'}
  }
  // after the sweep, which has refused what simulate refuses (no rows among them)
  const characterization = await characterizeTrace(req)
  const t = summary.trace as Json
  return {
    format: 'lmt.tiers_report',
    format_version: 1,
    lmt_version: req.version,
    trace: {name: req.traceLabel ?? basename(String(t.path)), ...t},
    notices: summary.notices as Notice[],
    characterization,
    answer: {
      group,
      tiers: tiers.names as string[],
      swept_tier: tiers.swept_tier as string,
      capacities_gb: tiers.capacities_gb as Array<number | null>,
      input_tokens: inputTokens,
      infinite: {token_hit_rate: infRate, is_ceiling: tiers.infinite_is_ceiling as boolean},
      points,
      chosen,
      left_out: LEFT_OUT,
    },
    performance: {seconds: (performance.now() - started) / 1000},
  }
}

/** The document (schemas/tiers-report.schema.json), and one capacity of the swept tier in it. */
export type TieredReportDocument = Awaited<ReturnType<typeof buildTieredReport>>
type TieredPoint = ReturnType<typeof pointsOf>[number]

/** ` HBM 0.61, SSD 0.09`-style words: the share of the token hit rate each tier serves at a point */
export function tierSharesText(p: TieredPoint, digits = 3): string {
  return p.tiers.map((t) => `${t.tier} ${t.token_hit_rate.toFixed(digits)}`).join(', ')
}

/** The report's lines for a terminal. */
export function tieredSummaryLines(doc: TieredReportDocument): string[] {
  const a = doc.answer
  const c = a.chosen
  return [
    `${String(doc.trace.name)}: group ${a.group}, tiers ${a.tiers.join(', ')}; the sweep varies ${a.swept_tier}; every tier unlimited: token hit rate ${a.infinite.token_hit_rate.toFixed(3)}`,
    `at ${a.swept_tier} ${c.capacity_gb.toPrecision(6)} GiB: ${c.token_hit_rate.toFixed(3)} token hit rate: ${tierSharesText(c)}`,
  ]
}
