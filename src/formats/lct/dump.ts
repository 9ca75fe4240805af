// `lmt trace dump`'s one library call: every frame of a trace as one JSON-ready entry (docs/lct.md §8), the header
// first and the reason the dump ended last.
import {decodeArgs} from './codecs.js'
import {decodeBody, type RawMap} from './msgpack.js'
import {readable} from './readable.js'
import {openTrace, type LctSource} from './reader.js'

export interface DumpOptions {
  maxFrameBytes?: number
  name?: string
  /** frames after the header shown at most */
  limit?: number
  /** record values as stored, without codec decoding */
  raw?: boolean
}

/**
 * Opens the trace (its header strictly: a bad one rejects) and lists its frames: the header's entry, each frame's,
 * then `{end}`; and the reader's state, once the entries are read (its warnings).
 */
export async function dumpTrace(source: LctSource, o: DumpOptions = {}) {
  const reader = await openTrace(source, {maxFrameBytes: o.maxFrameBytes, name: o.name})
  async function* entries(): AsyncGenerator<unknown> {
    yield {
      frame: 0,
      offset: 0,
      length: reader.headerLength,
      kind: 'header',
      value: readable(decodeBody(reader.headerBody)),
    }
    let shown = 0
    let end: string | undefined
    for await (const f of reader.frames()) {
      if (o.limit !== undefined && shown >= o.limit) {
        end = 'limit reached'
        break
      }
      shown++
      const head = {frame: f.index, offset: f.offset, length: f.length, kind: f.kind}
      if (f.kind === 'oversized') yield head
      else if (f.kind === 'malformed') yield {...head, error: f.error}
      else yield {...head, ...recordValue(decodeBody(f.body as Uint8Array) as RawMap, o.raw === true)}
    }
    await reader.close()
    if (end === undefined) {
      const last = reader.state.warnings.find(
        (w) => w.code === 'LMT_LCT_TRUNCATED_BODY' || w.code === 'LMT_LCT_TRUNCATED_PREFIX',
      )
      end = reader.state.truncated && last ? last.message : 'clean EOF'
    }
    yield {end}
  }
  return {entries: entries(), state: reader.state}
}

/** A record's value, its args codec-decoded unless `raw` (or with the decoding's error when they do not decode). */
function recordValue(value: RawMap, raw: boolean): {value: unknown; decode_error?: string} {
  if (raw) return {value: readable(value)}
  try {
    return {value: readable({...value, args: decodeArgs(value.args as RawMap)}, true)}
  } catch (err) {
    return {value: readable(value), decode_error: (err as Error).message}
  }
}
