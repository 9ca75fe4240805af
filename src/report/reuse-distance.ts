// Reuse distances: the LRU stack depth of every re-referenced get block, in distinct blocks, as simulate's stack
// pass computes them (an observer of the pass; the answer's own pass can feed it, see report.ts).
import {type SimConfig, type StackObserver, stackPass, type TraceRow} from '../simulate/index.js'
import {NumberList} from './histogram.js'

export class ReuseDistances {
  readonly distances = new NumberList()
  /** get blocks never referenced before */
  firstRefs = 0
  /** why the pass stopped early or did not run (null: complete) */
  reason: string | null = null

  readonly observe: StackObserver = (d, getLength) => {
    for (let j = 0; j < getLength; j++) {
      if (d[j] === Infinity) this.firstRefs++
      else this.distances.push(d[j])
    }
  }
}

/** One instance's reuse distances from a stack pass of its own (exact LRU, infinite capacity). */
export function reuseDistancesOf(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  instance: string,
  blockSize: number,
): ReuseDistances {
  const lruCfg: SimConfig = {
    ...cfg,
    eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 1},
    instance_groups: [
      {
        group_name: 'reuse',
        quota_capacity_blocks: -1,
        used_percentage: 1,
        instances: [
          {
            instance_id: instance,
            block_size: blockSize,
            eviction_policy_type: 'lru',
            eviction_policy_params: {},
          },
        ],
      },
    ],
  }
  const r = new ReuseDistances()
  const result = stackPass(rows, lruCfg, 'reuse', [], r.observe)
  r.reason = result.reason
  return r
}
