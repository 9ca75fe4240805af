// The console text of `lmt simulate`, in one place (docs/simulate.md §5.4): the library builds these lines, the
// command prints them (notices on stderr, the rest on stdout). Files are written by the other modules of output/.
import type {Notice} from '../config/notes.js'
import type {SimConfig} from '../config/config.js'
import {
  BLOCK_SIZE_CHECK_FLAG,
  type BlockSizeFit,
  type BlockSizeSource,
  rangeText,
} from '../input/block-size.js'
import {formatG} from '../../util/format-g.js'
import {capacityText} from '../config/capacity.js'
import {capacityLabel} from './summary.js'

/** The text of a finished run (`table`, `lines` as the run built them): notice lines (stderr), the rest (stdout). */
export function consoleText(
  notices: readonly Notice[],
  table: readonly string[],
  lines: readonly string[],
  outputDir: string,
): {notices: string[]; lines: string[]} {
  return {
    notices: notices.map((n) => `${n.level}: ${n.message} [${n.code}]`),
    lines: [...table, ...lines, `outputs in ${outputDir}`],
  }
}

/** One instance's block size, where it came from and what the rows say of it. */
export function blockSizeLine(
  id: string,
  blockSize: number,
  source: BlockSizeSource,
  fit: BlockSizeFit | undefined,
): string {
  const from = {
    flag: '--block-size',
    config: 'configured',
    inferred: 'inferred from the trace',
    default: 'default',
  }[source]
  if (fit === undefined || fit.unchecked)
    return `block size of instance "${id}": ${blockSize} (${from}); could not be checked: no get row with keys and input_len`
  const range = fit.consistent ? `fit ${rangeText(fit.lo, fit.hi)}` : 'fit no single block size'
  const verdict = fit.fits(blockSize)
    ? ''
    : `, which the rows contradict: replayed under ${BLOCK_SIZE_CHECK_FLAG}`
  const rule =
    source === 'inferred' && fit.lo < fit.hi ? '; the fitting size with the most factors of two' : ''
  return `block size of instance "${id}": ${blockSize} (${from}${verdict}); its ${fit.rows} get rows ${range}${rule}`
}

/** The block-size lines of the first ten instances, and how many more summary.json has. */
export function blockSizeLines(sizeLines: readonly string[]): string[] {
  return [
    ...sizeLines.slice(0, 10),
    ...(sizeLines.length > 10
      ? [`(the block sizes of ${sizeLines.length - 10} more instances: summary.json)`]
      : []),
  ]
}

export function infiniteOracleLine(groupName: string, tokenHitRate: number): string {
  return `oracle infinite: group ${groupName} token hit rate ${formatG(tokenHitRate)}`
}

/** The Belady line of a single run: the quota in its units (bytes for a capacity in GiB, else blocks). */
export function beladyOracleLine(
  groupName: string,
  tokenHitRate: number,
  quotaUnits: number | null,
  unit: 'bytes' | 'blocks',
): string {
  return `oracle belady: group ${groupName} token hit rate ${formatG(tokenHitRate)} at cache size ${quotaUnits === null ? 'inf' : `${quotaUnits} ${unit}`}`
}

/** The result line of a single run. */
export function runLine(
  traceName: string,
  policies: string,
  cfg: SimConfig,
  totals: Record<string, number>,
  lookupsPerSecond: number,
): string {
  return `${traceName} ${policies} cache size ${capacityLabel(cfg)}, ${totals.get_rows} req, token hit rate ${formatG(totals.token_hit_rate)}, block hit rate ${formatG(totals.block_hit_rate)}, throughput ${(lookupsPerSecond / 1e6).toFixed(2)} M lookups/s`
}

/** How much of a tiered instance's token hit rate each tier serves. */
export function tierLine(
  instance: string,
  tiers: ReadonlyArray<{name: string; rate: number}>,
  total: number,
): string {
  return `tiers of "${instance}": token hit rate ${formatG(total)} = ${tiers.map((t) => `${t.name} ${formatG(t.rate)}`).join(' + ')}`
}

/** A sweep point's line; {@link sweepBeladySuffix} is added to it when the Belady reference is known. */
export function sweepPointLine(
  cap: {blocks?: number; gb?: number},
  policy: string,
  tokenHitRate: number,
  fromStack: boolean,
): string {
  return `capacity ${capacityText(cap)}: ${policy} token hit rate ${formatG(tokenHitRate)}${fromStack ? ' (stack pass)' : ''}`
}

/** how far the policy is from the reference */
export function sweepBeladySuffix(tokenHitRate: number): string {
  return `, Belady ${formatG(tokenHitRate)}`
}

/** The closing lines of a sweep: the infinite ceiling, the stack method's share, the aggregate throughput. */
export function sweepFooterLines(s: {
  infiniteRate: number
  wss: number
  stack: {eligible: boolean; reason: string | null}
  points: number
  played: number
  traceName: string
  groupName: string
  threads: number
  lookupsPerSecond: number
}): string[] {
  return [
    `infinite capacity: token hit rate ${formatG(s.infiniteRate)} (working set ${s.wss} blocks)`,
    s.stack.eligible
      ? `one-pass stack method: ${s.points - s.played} of ${s.points} points taken from it, the others replayed`
      : `one-pass stack method not used (${s.stack.reason}): every point replayed`,
    `${s.traceName} sweep of group ${s.groupName}: ${s.points} points, aggregate over ${s.threads} thread${s.threads > 1 ? 's' : ''} ${(s.lookupsPerSecond / 1e6).toFixed(2)} M lookups/s`,
  ]
}

/** What the table's local and remote columns are (docs/simulate.md §4.3), printed under it. */
export const LOCAL_REMOTE_LINE =
  "local / remote: the token hit rate of hits on keys the get's block_mask marks local / of the other hits (split by key value, as the Optimizer does)"

/** The terminal table of docs/simulate.md §5.4. */
export function renderTable(summary: Record<string, unknown>): string[] {
  const head = [
    'group',
    'instance',
    'policy',
    'requests',
    'read blocks',
    'hit blocks',
    'token hit rate',
    'local',
    'remote',
    'evictions',
    'cached blocks',
  ]
  const rows: string[][] = [head]
  const instances = summary.instances as Array<Record<string, number | string>>
  for (const g of summary.groups as Array<Record<string, unknown>>) {
    const members = instances.filter((i) => i.group_name === g.group_name)
    const row = (name: string, policy: string, c: Record<string, number | string>) => [
      g.group_name as string,
      name,
      policy,
      String(c.get_rows),
      String(c.read_blocks),
      String(c.hit_blocks),
      formatG(c.token_hit_rate as number),
      formatG(c.local_token_hit_rate as number),
      formatG(c.remote_token_hit_rate as number),
      String(c.evictions),
      String(c.final_cached_blocks),
    ]
    for (const m of members) rows.push(row(m.instance_id as string, m.policy as string, m))
    rows.push(
      row(
        '*',
        [...new Set(members.map((m) => m.policy as string))].join('+'),
        g.totals as Record<string, number>,
      ),
    )
  }
  // padded to the widest cell of each column: the first three left-aligned, the figures right-aligned
  const widths = head.map((_, c) => Math.max(...rows.map((r) => r[c].length)))
  return rows.map((r) =>
    r
      .map((cell, c) => (c >= 3 ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
      .join('  ')
      .trimEnd(),
  )
}
