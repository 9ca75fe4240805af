// `lmt trace info`'s one library call: the count-only pass (docs/lct.md §4.7), and for an events trace the events
// block (a second pass, whose warnings repeat the first's and are not told again). The command passes the decoding
// it chose (src/formats/lct/fast/), which this folder never imports.
import {summarizeEvents} from './events-summary.js'
import {countTrace} from './reader.js'
import type {RecordDecoding} from './types.js'

export async function traceInfo(
  file: string,
  opts: {
    name: string
    maxFrameBytes: number
    /** after each chunk read: bytes read so far, records counted */
    onProgress?: (bytes: number, records: number) => void
    /** how the count-only pass reads records (default: the plain way) */
    decoding?: RecordDecoding
  },
) {
  const {name, maxFrameBytes} = opts
  const count = await countTrace(file, {
    maxFrameBytes,
    name,
    onProgress: opts.onProgress,
    decoding: opts.decoding,
  })
  if (count.header.level !== 'events') return {count}
  return {count, events: await summarizeEvents(file, {maxFrameBytes, name})}
}
