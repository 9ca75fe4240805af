// The .lct module's public surface (re-exported by the package entry point).
export * from './constants.js'
export {
  CodecError,
  UnknownTagError,
  codecForTag,
  decodeArgs,
  decodeValue,
  encodeArgs,
  encodeValue,
  registerCodec,
  type Codec,
  type DecodedArgs,
  type DecodedValue,
} from './codecs.js'
export {
  installTracing,
  isTracingEnabled,
  publishCallEvent,
  setTracingEnabled,
  traced,
  type ParamSpec,
  type TracedSpec,
} from './capture.js'
export {DTYPE_ITEM_SIZES, dtypeItemSize} from './dtypes.js'
export {MsgpackError, type RawMap, type RawValue} from './msgpack.js'
export {countTrace, openTrace, type LctSource, type TraceReader} from './reader.js'
export {recordArgs} from './record-args.js'
export {plainDecoding} from './record-decoding.js'
export {configDigest, processClock, TraceRecorder, type Clock, type TraceRecorderOptions} from './recorder.js'
export type * from './types.js'
export * from './values.js'
export {encodeHeaderBody, encodeRecordBody, frame} from './writer.js'
