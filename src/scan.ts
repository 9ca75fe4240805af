// `lmt/scan`: the fast lane for converter authors. Byte scanners that find the end of a JSON value, string or
// number and read small integers in place, without building a value per field; a row scanner built on
// them must fall back to the lossless parser (`parseJson` of `lmt`) for anything it does not recognise, and be
// pinned to that plain path by tests (see docs/architecture.md, "Fast lanes"). `lmt` itself is the plain API.
export {
  HalvesList,
  isDigit,
  isWs,
  isWsByte,
  numberEndBytes,
  skipWsBytes,
  smallIntegerArrayBytes,
  smallIntegerBytes,
  stringEndBytes,
  valueEndBytes,
} from './jsonl/json-scan-bytes.js'

// Lines encoded ahead, on a row decoder's thread: the usual get and write lines' pieces (the record encoder's
// bytes), and the runs that carry them to the framework. lmt takes runs only from its own converters; another
// converter's traces result is iterated as it is.
export {
  EncodedTraces,
  type EncodedTraceSource,
  encodedTraceSource,
  TraceBatch,
} from './convert/encoded-traces.js'
export {
  DEFAULT_GET_TAIL_BYTES,
  piecesOf as lineHeadPieces,
  putGetTail,
  putGetTailUint,
  putLineHead,
  putLineHeadUint64,
  putWriteTail,
  usualLineRoom,
} from './convert/record-encoder.js'
