// How the publisher-log converter reads its input: a batch of lines at a time (the byte batches of the input),
// digested to events (events.ts) on a worker thread while this one pairs (through the fast lane when the context has
// one), with the batch's columns and its key and text slabs behind accessors, so that the converter does not decode
// them itself.
import {type InputContext, type KeyList, KeySlabs, type LineBatch, mapInputBatches, parseJson} from 'lmt'
import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {GetTail} from './cold-gets.js'
import type {PassThrough, Problem, PublisherEventBatch, PublisherEventConfig} from './events.js'

const EVENT_DIGEST = new URL(`./events${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href

/** One decoded batch: the lines, their events (a row of columns per line) and the keys and values they point to. */
export class PublisherBatch {
  private readonly slabs: KeySlabs

  constructor(
    readonly lines: LineBatch,
    private readonly b: PublisherEventBatch,
  ) {
    this.slabs = new KeySlabs(b.words, b.text)
  }

  /** What line i is (PROBLEM, GET … in events.ts). */
  kind(i: number): number {
    return this.b.kinds[i]
  }

  problem(i: number): Problem {
    return this.b.problems.get(i) as Problem
  }

  inst(i: number): string {
    return this.b.strings[this.b.inst[i]]
  }

  session(i: number): string {
    return this.b.strings[this.b.session[i]]
  }

  ts(i: number): bigint {
    return this.b.wide.get(i)?.[0] ?? this.b.ts[i]
  }

  inputLen(i: number): bigint {
    return this.b.wide.get(i)?.[1] ?? this.b.inputLen[i]
  }

  /** Line i's keys: int64 words with their text (KeyList), or any JSON values. */
  keys(i: number): KeyList | unknown[] {
    const k = this.b.keys
    const w = k[4 * i]
    const t0 = k[4 * i + 2]
    const t1 = k[4 * i + 3]
    if (w >= 0) return this.slabs.list(w, w + k[4 * i + 1], t0, t1)
    return parseJson(this.slabs.textOf(t0, t1)) as unknown[]
  }

  /** Line i's pass-through values (undefined: absent), each made anew. */
  tail(i: number): GetTail {
    const [qt, bm, sw, ls] = this.b.passes[this.b.pass[i]]
    return {queryType: value(qt), blockMask: value(bm), swSize: value(sw), locationSpecNames: value(ls)}
  }
}

/** A pass-through value; the usual `[]` made as the parser would make it, without a parser per get. */
function value(p: PassThrough | undefined): unknown {
  if (p === null || typeof p !== 'object') return p
  return p.json === '[]' ? [] : parseJson(p.json)
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
