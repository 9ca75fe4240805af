// The `belady` oracle (simulate.md §6.4): farthest-next-need eviction, computed offline over the replay sequence.
import {BinaryHeap} from '../util/binary-heap.js'
import type {SimConfig} from './config.js'
import {quotaUnits, weightOf} from './replayer.js'
import type {TraceRow} from './trace-rows.js'

const NEVER = 0x7fffffff

interface Op {
  get: boolean
  inst: number
  /** block ids of the key path, one per key */
  ids: Int32Array
  inputLen: number
}

export interface BeladyInstanceCounts {
  instance_id: string
  get_rows: number
  read_blocks: number
  hit_blocks: number
  input_tokens: number
  hit_tokens: number
  evictions: number
}

export interface BeladyGroupResult {
  instances: BeladyInstanceCounts[]
  group_name: string
  token_hit_rate: number
  block_hit_rate: number
  hit_blocks: number
  quota_units: number | null
}

type Candidate = [number, number, number, number, number, number]

/** Eviction candidates come out largest first by (next need, depth, −instance order, creation sequence). */
function evictsFirst(a: Candidate, b: Candidate): boolean {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i] > b[i]
  return false
}

/**
 * Builds the replay sequence (rows and scheduled writes in replay order, §4.2) with path block ids per instance,
 * then replays it with offline farthest-next-need eviction per group.
 */
export function beladyOracle(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  onlyGroup?: string,
): BeladyGroupResult[] {
  return prepareBelady(rows, cfg, onlyGroup)(cfg)
}

/**
 * The capacity-independent part (replay sequence, path ids, next needs), once; the returned function replays it
 * for a configuration that differs only in capacities (sweep points).
 */
export function prepareBelady(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  onlyGroup?: string,
): (capCfg: SimConfig) => BeladyGroupResult[] {
  const instIndex = new Map<string, number>()
  const instGroup: number[] = []
  const weights: number[] = []
  const blockSizes: number[] = []
  const counts: BeladyInstanceCounts[] = []
  cfg.instance_groups.forEach((g, gi) => {
    if (onlyGroup !== undefined && g.group_name !== onlyGroup) return
    for (const i of g.instances) {
      counts.push({
        instance_id: i.instance_id,
        get_rows: 0,
        read_blocks: 0,
        hit_blocks: 0,
        input_tokens: 0,
        hit_tokens: 0,
        evictions: 0,
      })
      instIndex.set(i.instance_id, instIndex.size)
      instGroup.push(gi)
      weights.push(weightOf(g, i))
      blockSizes.push(i.block_size)
    }
  })
  const paths = new Map<string, number>()
  let nextId = 0
  const idsOf = (inst: number, keys: readonly number[]): Int32Array => {
    const ids = new Int32Array(keys.length)
    let parent = -1 - inst
    for (let j = 0; j < keys.length; j++) {
      const k = `${parent}:${keys[j]}`
      let id = paths.get(k)
      if (id === undefined) paths.set(k, (id = nextId++))
      ids[j] = parent = id
    }
    return ids
  }
  // ---- the replay sequence
  const ops: Op[] = []
  const delay = BigInt(cfg.trace_replay.write_delay_ns)
  const pending: Array<{ts: bigint; seq: number; inst: number; keys: number[]}> = []
  let seq = 0
  // rows come sorted and the delay is constant, so scheduled writes are due in scheduling order: a FIFO suffices
  let head = 0
  const flush = (upTo: bigint | undefined) => {
    while (head < pending.length && (upTo === undefined || pending[head].ts <= upTo)) {
      const w = pending[head++]
      ops.push({get: false, inst: w.inst, ids: idsOf(w.inst, w.keys), inputLen: 0})
    }
  }
  for (const row of rows) {
    flush(row.ts)
    const inst = instIndex.get(row.instance)
    if (inst === undefined) continue
    if (row.type === 'write') ops.push({get: false, inst, ids: idsOf(inst, row.keys), inputLen: 0})
    else {
      if (row.queryType === 'prefix_match')
        ops.push({get: true, inst, ids: idsOf(inst, row.keys), inputLen: row.inputLen})
      if (row.type === 'request') pending.push({ts: row.ts + delay, seq: seq++, inst, keys: row.keys})
    }
  }
  flush(undefined)
  // ---- next need, one backward pass
  const nextGet = new Int32Array(nextId).fill(NEVER)
  const nextWrite = new Int32Array(nextId).fill(NEVER)
  const need: Int32Array[] = new Array(ops.length)
  for (let p = ops.length - 1; p >= 0; p--) {
    const {ids, get} = ops[p]
    const n = new Int32Array(ids.length)
    for (let j = 0; j < ids.length; j++) n[j] = nextGet[ids[j]] < nextWrite[ids[j]] ? nextGet[ids[j]] : NEVER
    need[p] = n
    for (let j = 0; j < ids.length; j++) (get ? nextGet : nextWrite)[ids[j]] = p
  }
  // ---- forward replay with farthest-next-need eviction
  return (capCfg: SimConfig) => {
    for (const c of counts)
      Object.assign(c, {
        get_rows: 0,
        read_blocks: 0,
        hit_blocks: 0,
        input_tokens: 0,
        hit_tokens: 0,
        evictions: 0,
      })
    const live = new Uint8Array(nextId)
    const version = new Int32Array(nextId)
    const depth = new Int32Array(nextId)
    const owner = new Int32Array(nextId)
    const groups = capCfg.instance_groups.map((g) => ({
      g,
      quota: quotaUnits(g),
      used: 0,
      heap: new BinaryHeap<Candidate>(evictsFirst), // lazily invalidated by version
      hit: 0,
      read: 0,
      hitTokens: 0,
      input: 0,
    }))
    let creation = 0
    const mark = (inst: number, id: number, j: number, nn: number) => {
      version[id]++
      depth[id] = j
      owner[id] = inst
      groups[instGroup[inst]].heap.push([nn, j, -inst, creation++, id, version[id]])
    }
    for (let p = 0; p < ops.length; p++) {
      const {ids, get, inst, inputLen} = ops[p]
      const grp = groups[instGroup[inst]]
      if (get) {
        let h = 0
        while (h < ids.length && live[ids[h]]) h++
        grp.hit += h
        grp.read += ids.length
        grp.hitTokens += h * blockSizes[inst]
        grp.input += inputLen
        const c = counts[inst]
        c.get_rows++
        c.read_blocks += ids.length
        c.hit_blocks += h
        c.input_tokens += inputLen
        c.hit_tokens += h * blockSizes[inst]
        for (let j = 0; j < ids.length; j++) if (live[ids[j]]) mark(inst, ids[j], j, need[p][j])
        continue
      }
      for (let j = 0; j < ids.length; j++) {
        if (!live[ids[j]]) {
          live[ids[j]] = 1
          grp.used += weights[inst]
        }
        mark(inst, ids[j], j, need[p][j])
      }
      if (grp.quota === null) continue
      while (grp.used > grp.quota && grp.heap.size > 0) {
        const [, , , , id, v] = grp.heap.pop() as Candidate
        if (v !== version[id] || !live[id]) continue
        live[id] = 0
        version[id]++
        grp.used -= weights[owner[id]]
        counts[owner[id]].evictions++
      }
    }
    return groups
      .filter((x) => onlyGroup === undefined || x.g.group_name === onlyGroup)
      .map((x) => ({
        instances: counts
          .filter((_, i) => instGroup[i] === capCfg.instance_groups.indexOf(x.g))
          .map((c) => ({...c})),
        group_name: x.g.group_name,
        token_hit_rate: x.input > 0 ? x.hitTokens / x.input : 0,
        block_hit_rate: x.read > 0 ? x.hit / x.read : 0,
        hit_blocks: x.hit,
        quota_units: x.quota,
      }))
  }
}
