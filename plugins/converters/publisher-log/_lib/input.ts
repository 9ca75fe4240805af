// How the publisher-log converter reads its input: a batch of lines at a time (the byte batches of the input),
// digested to events (events.ts) on a worker thread while this one pairs (through the fast lane when the context has
// one), with the batch's key and text slabs behind two accessors so that the converter does not decode them itself.
import {type InputContext, type KeyList, KeySlabs, type LineBatch, mapInputBatches, parseJson} from 'lmt'
import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {
  KeysRef,
  PassThrough,
  PublisherEvent,
  PublisherEventBatch,
  PublisherEventConfig,
} from './events.js'

const EVENT_DIGEST = new URL(`./events${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href

/** One decoded batch: the lines, their events (one per line) and the keys and values the events point to. */
export class PublisherBatch {
  readonly events: readonly PublisherEvent[]
  private readonly slabs: KeySlabs
  private readonly text: Uint8Array

  constructor(
    readonly lines: LineBatch,
    batch: PublisherEventBatch,
  ) {
    this.events = batch.events
    this.slabs = new KeySlabs(batch.words, batch.text)
    this.text = batch.text
  }

  /** The keys an event points to: int64 words with their text (KeyList), or any JSON values. */
  keys(r: KeysRef): KeyList | unknown[] {
    if (r.w >= 0) return this.slabs.list(r.w, r.w + r.n, r.t0, r.t1)
    return parseJson(this.slabs.textOf(r.t0, r.t1)) as unknown[]
  }

  /** A pass-through value (undefined: absent). */
  value(p: PassThrough | undefined): unknown {
    if (p === null || typeof p !== 'object') return p
    // the usual `location_spec_names: []` made as the parser would make it, without one per get (see isEmptyList)
    if (isEmptyList(this.text, p.t0, p.t1)) return []
    return parseJson(this.slabs.textOf(p.t0, p.t1))
  }
}

/**
 * Whether text[t0, t1) is `[]` exactly (the worker's serialization of an empty list). Parsing it cost a parser per
 * get, and its code was thrown away at every full collection.
 */
export function isEmptyList(text: Uint8Array, t0: number, t1: number): boolean {
  return t1 - t0 === 2 && text[t0] === 0x5b && text[t0 + 1] === 0x5d
}

/** The input's events, a decoded batch at a time, in input order. */
export async function* publisherEventBatches(
  ctx: InputContext,
  config: PublisherEventConfig,
): AsyncGenerator<PublisherBatch> {
  // the converter reads a batch's lines (warnings, counts) only while it pairs that batch's events
  const spec = {module: EVENT_DIGEST, config, workers: 1, linesDoneAtNext: true}
  for await (const {lines, result} of mapInputBatches<PublisherEventBatch>(ctx, spec))
    yield new PublisherBatch(lines, result)
}
