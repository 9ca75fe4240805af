import {describe, expect, it} from 'vitest'
import * as lmt from '../src/index.js'
import * as scan from '../src/scan.js'
import * as jsonScanBytes from '../src/jsonl/json-scan-bytes.js'
import * as encodedTraces from '../src/convert/encoded-traces.js'
import * as recordEncoder from '../src/convert/record-encoder.js'

describe('lmt/scan, the fast lane for converter authors', () => {
  it('is exactly the byte scanners (pinned to the lossless parser by test/jsonl/json-scan-bytes.test.ts) and the pieces of lines encoded ahead (pinned by test/converters/hash-id-encoded.test.ts and test/convert/record-encoder.test.ts) and batches of traces (pinned by test/converters/publisher-batches.test.ts)', () => {
    const {encodedTraceSource, EncodedTraces, TraceBatch} = encodedTraces
    const {
      DEFAULT_GET_TAIL_BYTES,
      piecesOf,
      putGetTail,
      putGetTailUint,
      putLineHead,
      putLineHeadUint64,
      putWriteTail,
      usualLineRoom,
    } = recordEncoder
    const lines = {
      encodedTraceSource,
      EncodedTraces,
      TraceBatch,
      DEFAULT_GET_TAIL_BYTES,
      putGetTail,
      putGetTailUint,
      putLineHead,
      putLineHeadUint64,
      putWriteTail,
    }
    const scanners = {
      ...jsonScanBytes,
      ...lines,
      usualLineRoom,
      lineHeadPieces: piecesOf,
    } as Record<string, unknown>
    expect(Object.keys(scan).length).toBeGreaterThan(10)
    for (const [name, value] of Object.entries(scan)) expect(value, name).toBe(scanners[name])
  })

  it('is not part of the plain API', () => {
    for (const name of Object.keys(scan)) expect(Object.hasOwn(lmt, name), name).toBe(false)
    expect(typeof lmt.parseJson).toBe('function')
  })
})
