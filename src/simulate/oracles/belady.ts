// The `belady` oracle (docs/simulate.md §6.4): farthest-next-need eviction, computed offline over the replay sequence.
import type {SimConfig} from '../config/config.js'
import {PrefixBlocks} from './prefix-blocks.js'
import {playOrder} from '../engine/play-rows.js'
import {quotaUnits, weightOf} from '../config/capacity.js'
import type {TraceRow} from '../input/trace-rows.js'

const NEVER = 0x7fffffff

interface Op {
  get: boolean
  inst: number
  /** block ids of the key path, one per key */
  ids: Int32Array
  inputLen: number
}

/**
 * The live blocks of one group as eviction candidates: an indexed binary heap of block ids, largest first by
 * (next need, depth, −instance order, sequence of the last mark). Each live block has one entry, moved when its
 * block is marked again, so the heap never holds more than the group's live blocks.
 */
class CandidateHeap {
  private readonly heap: Int32Array
  /** a block's place in the heap, −1 when absent */
  private readonly at: Int32Array
  size = 0

  constructor(
    blocks: number,
    private readonly need: Int32Array,
    private readonly depth: Int32Array,
    private readonly negInst: Int32Array,
    private readonly seq: Int32Array,
  ) {
    this.heap = new Int32Array(Math.max(1, blocks))
    this.at = new Int32Array(Math.max(1, blocks)).fill(-1)
  }

  private before(a: number, b: number): boolean {
    if (this.need[a] !== this.need[b]) return this.need[a] > this.need[b]
    if (this.depth[a] !== this.depth[b]) return this.depth[a] > this.depth[b]
    if (this.negInst[a] !== this.negInst[b]) return this.negInst[a] > this.negInst[b]
    return this.seq[a] > this.seq[b]
  }

  private place(i: number, id: number): void {
    this.heap[i] = id
    this.at[id] = i
  }

  private up(i: number): void {
    const id = this.heap[i]
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.before(id, this.heap[p])) break
      this.place(i, this.heap[p])
      i = p
    }
    this.place(i, id)
  }

  private down(i: number): void {
    const id = this.heap[i]
    for (;;) {
      const l = 2 * i + 1
      if (l >= this.size) break
      const r = l + 1
      const c = r < this.size && this.before(this.heap[r], this.heap[l]) ? r : l
      if (!this.before(this.heap[c], id)) break
      this.place(i, this.heap[c])
      i = c
    }
    this.place(i, id)
  }

  /** Adds block `id`, or moves it after its key changed (set the key arrays first). */
  update(id: number): void {
    const i = this.at[id]
    if (i < 0) {
      this.place(this.size, id)
      this.up(this.size++)
    } else {
      this.up(i)
      this.down(this.at[id])
    }
  }

  /** Removes and returns the first block. */
  pop(): number {
    const top = this.heap[0]
    this.at[top] = -1
    const last = --this.size
    if (last > 0) {
      this.place(0, this.heap[last])
      this.down(0)
    }
    return top
  }
}

/**
 * The capacity-independent part (the replay sequence of rows and scheduled writes in replay order, with path block
 * ids per instance, and next needs), once; the returned function replays it with offline farthest-next-need
 * eviction per group for a configuration that differs only in capacities (sweep points).
 */
export function prepareBelady(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  onlyGroup?: string,
): (capCfg: SimConfig, onOps?: (done: number, total: number) => void) => BeladyGroupResult[] {
  const table = instanceTable(cfg, onlyGroup)
  const paths = new PrefixBlocks()
  const ops = playSequence(rows, cfg, table.instIndex, paths)
  const prep: Prepared = {...table, ops, nextId: paths.count, need: nextNeeds(ops, paths.count), onlyGroup}
  return (capCfg, onOps) => playBelady(prep, capCfg, onOps)
}

/** The instances of the (swept) groups, numbered in configuration order, with their weights and counters. */
interface InstanceTable {
  instIndex: Map<string, number>
  instGroup: number[]
  blockSizes: number[]
  counts: BeladyInstanceCounts[]
}

/** What the plays at each capacity share. */
interface Prepared extends InstanceTable {
  ops: Op[]
  /** the number of path blocks */
  nextId: number
  /** per op, per block: the op that next reads it before it is written again (NEVER: none) */
  need: Int32Array[]
  onlyGroup?: string
}

function zeroCounts(instance_id: string) {
  return {
    instance_id,
    get_rows: 0,
    read_blocks: 0,
    hit_blocks: 0,
    input_tokens: 0,
    hit_tokens: 0,
    evictions: 0,
  }
}

function instanceTable(cfg: SimConfig, onlyGroup: string | undefined): InstanceTable {
  const t: InstanceTable = {instIndex: new Map(), instGroup: [], blockSizes: [], counts: []}
  cfg.instance_groups.forEach((g, gi) => {
    if (onlyGroup !== undefined && g.group_name !== onlyGroup) return
    for (const i of g.instances) {
      t.counts.push(zeroCounts(i.instance_id))
      t.instIndex.set(i.instance_id, t.instIndex.size)
      t.instGroup.push(gi)
      t.blockSizes.push(i.block_size)
    }
  })
  return t
}

/**
 * Each instance's block weight at the capacities of `capCfg`, in the order of {@link instanceTable}: the weight
 * and the quota come from the same group, so a capacity in GiB weighs blocks in bytes.
 */
function weightsAt(capCfg: SimConfig, onlyGroup: string | undefined): number[] {
  return capCfg.instance_groups
    .filter((g) => onlyGroup === undefined || g.group_name === onlyGroup)
    .flatMap((g) => g.instances.map((i) => weightOf(g, i)))
}

/** The rows and scheduled writes in play order (§4.2), each as the path block ids of its instance. */
function playSequence(
  rows: readonly TraceRow[],
  cfg: SimConfig,
  instIndex: Map<string, number>,
  paths: PrefixBlocks,
): Op[] {
  const idsOf = (inst: number, keys: readonly number[]): Int32Array => {
    const ids = new Int32Array(keys.length)
    let parent = -1 - inst // each instance has its own root
    for (let j = 0; j < keys.length; j++) ids[j] = parent = paths.block(parent, keys[j])
    return ids
  }
  const ops: Op[] = []
  for (const {row, scheduled} of playOrder(rows, BigInt(cfg.trace_replay.write_delay_ns))) {
    const inst = instIndex.get(row.instance)
    if (inst === undefined) continue
    if (scheduled || row.type === 'write')
      ops.push({get: false, inst, ids: idsOf(inst, row.keys), inputLen: 0})
    else if (row.queryType === 'prefix_match')
      ops.push({get: true, inst, ids: idsOf(inst, row.keys), inputLen: row.inputLen})
  }
  return ops
}

/** Next need, one backward pass. */
function nextNeeds(ops: readonly Op[], nextId: number): Int32Array[] {
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
  return need
}

/**
 * The forward play with farthest-next-need eviction at the capacities of `capCfg`. Its loop over the ops is the
 * measured inner loop of the oracle (one pass per sweep point): it stays in one piece, over local typed arrays.
 */
function playBelady(prep: Prepared, capCfg: SimConfig, onOps?: (done: number, total: number) => void) {
  const {ops, need, nextId, counts, instGroup, blockSizes} = prep
  const weights = weightsAt(capCfg, prep.onlyGroup)
  for (const c of counts) Object.assign(c, zeroCounts(c.instance_id))
  const live = new Uint8Array(nextId)
  // each live block's key: next need, depth, −instance, sequence of its last mark
  const nextNeed = new Int32Array(nextId)
  const depth = new Int32Array(nextId)
  const negInst = new Int32Array(nextId)
  const markSeq = new Int32Array(nextId)
  const owner = new Int32Array(nextId)
  const groups = capCfg.instance_groups.map((g) => ({
    g,
    quota: quotaUnits(g),
    used: 0,
    heap: new CandidateHeap(nextId, nextNeed, depth, negInst, markSeq),
    hit: 0,
    read: 0,
    hitTokens: 0,
    input: 0,
  }))
  let creation = 0
  const mark = (inst: number, id: number, j: number, nn: number) => {
    nextNeed[id] = nn
    depth[id] = j
    negInst[id] = -inst
    markSeq[id] = creation++
    owner[id] = inst
    const grp = groups[instGroup[inst]]
    if (grp.quota !== null) grp.heap.update(id) // an infinite group never evicts
  }
  for (let p = 0; p < ops.length; p++) {
    if (onOps !== undefined && (p & 0x3fff) === 0) onOps(p, ops.length)
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
      const id = grp.heap.pop()
      live[id] = 0
      grp.used -= weights[owner[id]]
      counts[owner[id]].evictions++
    }
  }
  return beladyResults(prep, capCfg, groups)
}

function beladyResults(
  prep: Prepared,
  capCfg: SimConfig,
  groups: ReadonlyArray<{
    g: SimConfig['instance_groups'][number]
    quota: number | null
    hit: number
    read: number
    hitTokens: number
    input: number
  }>,
) {
  const {onlyGroup, counts, instGroup} = prep
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

export type BeladyInstanceCounts = ReturnType<typeof zeroCounts>
/** A group's Belady reference at one capacity: its instances' counts and the group's rates. */
export type BeladyGroupResult = ReturnType<typeof beladyResults>[number]
