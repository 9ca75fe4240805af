import {describe, expect, it} from 'vitest'
import {prepareBelady} from '../../../src/simulate/oracles/belady.js'
import type {SimConfig} from '../../../src/simulate/config/config.js'
import type {TraceRow} from '../../../src/simulate/input/trace-rows.js'

/**
 * A direct reading of the `belady` oracle (docs/simulate.md §6.4), quadratic and obvious: next needs by scanning ahead,
 * each eviction by scanning the live blocks for the largest (next need, depth, −instance, last mark) — the oracle's
 * heap must choose the same blocks.
 */
function naiveBelady(rows: TraceRow[], cfg: SimConfig, bs: Record<string, number>) {
  const insts = cfg.instance_groups.flatMap((g, gi) => g.instances.map((i) => ({id: i.instance_id, gi})))
  const index = new Map(insts.map((x, k) => [x.id, k]))
  const paths = new Map<string, number>()
  const ops: Array<{get: boolean; inst: number; ids: number[]; inputLen: number}> = []
  for (const r of rows) {
    const inst = index.get(r.instance)
    if (inst === undefined) continue
    if (r.type === 'get' && r.queryType !== 'prefix_match') continue
    let parent = `i${inst}`
    const ids = r.keys.map((k) => {
      parent = `${parent}/${k}`
      if (!paths.has(parent)) paths.set(parent, paths.size)
      return paths.get(parent) as number
    })
    ops.push({get: r.type === 'get', inst, ids, inputLen: r.inputLen})
  }
  const nextNeed = (p: number, id: number): number => {
    for (let q = p + 1; q < ops.length; q++) if (ops[q].ids.includes(id)) return ops[q].get ? q : 0x7fffffff
    return 0x7fffffff
  }
  const counts = insts.map((x) => ({
    instance_id: x.id,
    get_rows: 0,
    read_blocks: 0,
    hit_blocks: 0,
    input_tokens: 0,
    hit_tokens: 0,
    evictions: 0,
  }))
  const live = new Map<number, {inst: number; tuple: number[]}>()
  let creation = 0
  const used = cfg.instance_groups.map(() => 0)
  const quota = cfg.instance_groups.map((g) => g.quota_capacity_blocks as number)
  ops.forEach((op, p) => {
    const c = counts[op.inst]
    const gi = insts[op.inst].gi
    const mark = (id: number, j: number) =>
      live.set(id, {inst: op.inst, tuple: [nextNeed(p, id), j, -op.inst, creation++]})
    if (op.get) {
      let h = 0
      while (h < op.ids.length && live.has(op.ids[h])) h++
      c.get_rows++
      c.read_blocks += op.ids.length
      c.hit_blocks += h
      c.input_tokens += op.inputLen
      c.hit_tokens += h * bs[insts[op.inst].id]
      op.ids.forEach((id, j) => live.has(id) && mark(id, j))
      return
    }
    op.ids.forEach((id, j) => {
      if (!live.has(id)) used[gi]++
      mark(id, j)
    })
    while (quota[gi] >= 0 && used[gi] > quota[gi]) {
      let best: number | undefined
      for (const [id, b] of live) {
        if (insts[b.inst].gi !== gi) continue
        if (best === undefined || greater(b.tuple, (live.get(best) as {tuple: number[]}).tuple)) best = id
      }
      const b = live.get(best as number) as {inst: number}
      live.delete(best as number)
      used[gi]--
      counts[b.inst].evictions++
    }
  })
  return counts
}

/** lexicographic a > b */
function greater(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i]
  return false
}

describe('the belady oracle', () => {
  it('evicts exactly as a direct scan of the live blocks would, on random multi-instance traces', () => {
    let seed = 4242
    const rand = (n: number) => (seed = (seed * 48271) % 2147483647) % n
    for (let t = 0; t < 40; t++) {
      const bs = {a: 4, b: 8, c: 4}
      const cfg: SimConfig = {
        trace_file_path: 'x',
        output_result_path: 'y',
        eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 1},
        trace_replay: {mode: 'read_write', write_delay_ns: 0},
        instance_groups: [
          {
            group_name: 'g1',
            quota_capacity_blocks: 1 + rand(6),
            used_percentage: 1,
            instances: ['a', 'b'].map((id) => ({
              instance_id: id,
              block_size: bs[id as 'a' | 'b'],
              eviction_policy_type: 'lru' as const,
              eviction_policy_params: {},
            })),
          },
          {
            group_name: 'g2',
            quota_capacity_blocks: 1 + rand(4),
            used_percentage: 1,
            instances: [
              {instance_id: 'c', block_size: 4, eviction_policy_type: 'lru', eviction_policy_params: {}},
            ],
          },
        ],
      }
      const rows: TraceRow[] = Array.from({length: 60}, (_, i) => {
        const keys = Array.from({length: rand(5)}, () => rand(3))
        return {
          type: rand(2) ? 'get' : 'write',
          instance: ['a', 'b', 'c', 'z'][rand(4)],
          ts: BigInt(i),
          keys,
          inputLen: 4 * keys.length + rand(4),
          mask: [],
          queryType: rand(10) ? 'prefix_match' : 'other',
          lineNo: i + 1,
        }
      })
      const got = prepareBelady(rows, cfg)(cfg).flatMap((g) => g.instances)
      expect(got).toEqual(naiveBelady(rows, cfg, bs))
    }
  })
})
