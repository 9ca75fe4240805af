// Hit rate over trace time at one capacity: each policy's replay (simulate's Player, with its plot series) and the
// infinite cache, as the token hit rate of each time bin.
import {playInMemory, type Player, type PolicyName, type SimConfig, type TraceRow} from '../simulate/index.js'
import {eventLoopTurn} from '../util/event-loop-turn.js'
import {withPolicy} from './curves.js'
import type {TimeBins} from './time-bins.js'

/** Per instance, the cumulative input tokens after each replayed get (the Player's read records). */
function cumulativeTokens(rows: readonly TraceRow[]): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const r of rows) {
    if (r.type === 'write' || r.queryType !== 'prefix_match') continue
    let list = out.get(r.instance)
    if (!list) out.set(r.instance, (list = []))
    list.push((list[list.length - 1] ?? 0) + r.inputLen)
  }
  return out
}

/**
 * The bins' token hit rates from a replay's decimated cumulative series: hit tokens and input tokens at the last kept
 * read record before each bin's end, differenced (summed over the group's instances).
 */
export function binnedRates(
  r: Player,
  groupName: string,
  tokens: Map<string, number[]>,
  bins: TimeBins,
  series: string,
) {
  const hits = new Float64Array(bins.count + 1)
  const input = new Float64Array(bins.count + 1)
  const group = r.groups.find((g) => g.cfg.group_name === groupName)
  let totalHit = 0
  let totalIn = 0
  for (const m of group?.members ?? []) {
    const cum = tokens.get(m.cfg.instance_id) ?? []
    const pts = m.plotPoints()
    let k = -1
    for (let b = 0; b < bins.count; b++) {
      const end =
        b + 1 < bins.count ? bins.first + BigInt(Math.round(bins.startSeconds(b + 1) * 1e9)) : undefined
      while (k + 1 < pts.length && (end === undefined || pts[k + 1].ts < end)) k++
      if (k < 0) continue
      hits[b + 1] += pts[k].accHitRate * cum[pts[k].read]
      input[b + 1] += cum[pts[k].read]
    }
    totalHit += m.counters.hit_tokens
    totalIn += m.counters.input_tokens
  }
  const points = Array.from({length: bins.count}, (_, b) => {
    const dIn = input[b + 1] - input[b]
    // null: no request in the bin
    return {
      t: bins.startSeconds(b),
      series,
      token_hit_rate: dIn > 0 ? Math.max(0, (hits[b + 1] - hits[b]) / dIn) : null,
    }
  })
  return {series, token_hit_rate: totalIn > 0 ? totalHit / totalIn : 0, points}
}

export interface OverTimeRequest {
  rows: readonly TraceRow[]
  config: SimConfig
  groupName: string
  capacityBlocks: number
  policies: readonly PolicyName[]
  bins: TimeBins
  seed: bigint
  /** the infinite replay (with plot series), already made */
  infinite: Player
}

/** One replay per policy at the capacity, plus the infinite cache (a Ctrl-C is answered between the replays). */
export async function hitRateOverTime(req: OverTimeRequest) {
  const tokens = cumulativeTokens(req.rows)
  const out: Array<ReturnType<typeof binnedRates>> = []
  for (const policy of req.policies) {
    await eventLoopTurn()
    const run = playInMemory(req.rows, {
      config: withPolicy(req.config, req.groupName, policy),
      seed: req.seed,
      strictInstances: false,
      plots: true,
      onlyGroup: req.groupName,
      capacityOverride: {group: req.groupName, blocks: req.capacityBlocks},
      traceName: '',
    })
    out.push(binnedRates(run, req.groupName, tokens, req.bins, policy))
  }
  out.push(binnedRates(req.infinite, req.groupName, tokens, req.bins, 'infinite capacity'))
  return out
}
