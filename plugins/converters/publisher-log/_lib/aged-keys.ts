// The keys of publisher events that stay pending after their batch: first they are views into their batch's slabs;
// once the event has been pending a few batches, it keeps its keys on its own (in the run's spill folder, or in a
// buffer of its own without one), so that memory follows the pending events, not the batches they came in.
import {join} from 'node:path'
import {KeyList} from 'lmt'
import {KeySpill, SpilledKeys} from './key-spill.js'

/** A list of keys: int64 words with their text (KeyList), any JSON values, or a KeyList spilled to disk. */
export type Keys = KeyList | unknown[] | SpilledKeys
/** Keys in memory. */
export type LoadedKeys = KeyList | unknown[]

/** What a pending event has that ageing changes. */
export interface AgeingEvent {
  keys: Keys
  /** still pending (false once matched, or superseded) */
  live: boolean
}

/** Batches after which a still-pending event's keys leave its batch's slabs (and a pending get may go cold). */
export const SLAB_GRACE_BATCHES = 2

/** The keys in buffers of their own, not views of their batch's slabs (a run without a spill folder keeps them so). */
const ownKeys = (keys: KeyList): KeyList =>
  KeyList.fromParts(keys.words().slice(), new Uint8Array(keys.toJsonBytes()))

let spills = 0

/** Pending events of the last few batches and the keys of the older ones (see the file's comment). */
export class AgedKeys {
  private readonly batches: AgeingEvent[][] = [[]]
  /** the spill file, if the run has a folder for it */
  readonly spill: KeySpill | undefined

  /** `spillDir`: where aged keys go; none keeps them in memory. */
  constructor(spillDir: string | undefined) {
    this.spill =
      spillDir === undefined ? undefined : new KeySpill(join(spillDir, `publisher-keys-${spills++}.bin`))
  }

  /** A pending event of the current batch. */
  add(e: AgeingEvent): void {
    this.batches[this.batches.length - 1].push(e)
  }

  /** A batch is done: the events of the batch that aged out, if still pending, keep their keys on their own. */
  endBatch(): void {
    this.batches.push([])
    if (this.batches.length <= SLAB_GRACE_BATCHES) return
    for (const e of this.batches.shift() as AgeingEvent[]) if (e.live) e.keys = this.keep(e.keys)
  }

  /** Keys as they can be compared and written (read back from disk when spilled). */
  load(keys: Keys): LoadedKeys {
    return keys instanceof SpilledKeys ? (this.spill as KeySpill).get(keys) : keys
  }

  close(): void {
    this.spill?.close()
  }

  private keep(keys: Keys): Keys {
    if (!(keys instanceof KeyList)) return keys
    return this.spill === undefined ? ownKeys(keys) : this.spill.put(keys)
  }
}
