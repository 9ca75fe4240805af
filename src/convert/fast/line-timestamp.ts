// The byte scan of a run line's timestamp, an accelerator of the run reader (run-files.ts, which parses the line):
// the merge reads the timestamp of each line of a run without a prefix (the first run of a single input, written as
// the output), and the stretch copy's binary search reads many more.
import {skipWsBytes, stringEndBytes, valueEndBytes} from '../../formats/json/fast/json-scan-bytes.js'
import {timestampOfLine} from '../run-files.js'

const TIMESTAMP_NS = Buffer.from('timestamp_ns')

function isTimestampKey(b: Uint8Array, keyStart: number, keyEnd: number): boolean {
  if (keyEnd - keyStart !== TIMESTAMP_NS.length + 2) return false
  for (let i = 0; i < TIMESTAMP_NS.length; i++) if (b[keyStart + 1 + i] !== TIMESTAMP_NS[i]) return false
  return true
}

/**
 * `timestamp_ns` of the line b[start, end) read from its bytes: the top-level keys are walked up to it (values
 * skipped, not built) and its integer literal is read; undefined for anything unusual (an escape in a key, a
 * non-integer), which the exact parser then decides. A run's lines are the framework's own serialization of an
 * object or a Map, which cannot repeat a key, so the first timestamp_ns is the one. `b[end]` must end every item
 * (a 0 byte).
 */
function scanTimestampNs(b: Uint8Array, start: number): bigint | undefined {
  let p = skipWsBytes(b, start)
  if (b[p] !== 0x7b) return undefined
  p = skipWsBytes(b, p + 1)
  for (;;) {
    if (b[p] !== 0x22) return undefined
    const keyEnd = stringEndBytes(b, p, false)
    if (keyEnd < 0) return undefined
    const isTs = isTimestampKey(b, p, keyEnd)
    p = skipWsBytes(b, keyEnd)
    if (b[p] !== 0x3a) return undefined
    p = skipWsBytes(b, p + 1)
    const valueStart = p
    p = valueEndBytes(b, p, 1)
    if (p < 0) return undefined
    if (isTs) {
      const first = b[valueStart] === 0x2d ? valueStart + 1 : valueStart
      for (let i = first; i < p; i++) if (b[i] < 0x30 || b[i] > 0x39) return undefined // an integer literal only
      return BigInt(Buffer.from(b.buffer, b.byteOffset + valueStart, p - valueStart).toString('latin1'))
    }
    p = skipWsBytes(b, p)
    if (b[p] !== 0x2c) return undefined
    p = skipWsBytes(b, p + 1)
  }
}

/**
 * `timestamp_ns` of the line buf[start, end) of a run without a prefix: scanned from the bytes (the byte at `end`,
 * its newline, is a 0 meanwhile), the exact parser when the scan is unsure.
 */
export function lineTimestamp(buf: Buffer, start: number, end: number): bigint {
  if (end < buf.length) {
    const saved = buf[end]
    buf[end] = 0
    let ts: bigint | undefined
    try {
      ts = scanTimestampNs(buf, start)
    } finally {
      buf[end] = saved
    }
    if (ts !== undefined) return ts
  }
  return timestampOfLine(buf.toString('utf8', start, end))
}
