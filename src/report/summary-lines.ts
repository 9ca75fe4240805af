// The report's few lines for a terminal: the answer in words.
import type {ReportDocument} from './document.js'

const pct = (r: number) => `${(r * 100).toFixed(1)} %`

export function reportSummaryLines(doc: ReportDocument): string[] {
  const a = doc.answer
  const lines = [
    `${String(doc.trace.name)}: ${doc.characterization.overall.requests} requests, working set ${a.wss_blocks} blocks, infinite-capacity token hit rate ${pct(a.infinite.token_hit_rate)}`,
  ]
  for (const row of a.capacity_table) {
    const cells = row.needs.map((n) => {
      const v =
        n.blocks === null
          ? 'not reached'
          : `${n.how === 'at_most' ? '≤' : n.how === 'interpolated' ? '≈' : ''}${n.blocks}${n.gb === null ? '' : ` (${n.gb.toFixed(2)} GiB)`}`
      return `${Math.round(n.target * 100)} %: ${v}`
    })
    lines.push(`  ${row.policy.padEnd(15)} ${cells.join(', ')}`)
  }
  const at = a.over_time.map((s) => `${s.series} ${pct(s.token_hit_rate)}`).join(', ')
  lines.push(`at ${a.chosen_capacity.blocks} blocks: ${at}`)
  const lookup = doc.lmcache?.lookup.chosen
  if (typeof lookup?.token_hit_rate === 'number')
    lines.push(
      `  LMCache's simulator (lmcache_lru) at ${lookup.capacity_chunks} chunks: ${pct(lookup.token_hit_rate)}`,
    )
  return lines
}
