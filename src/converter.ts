// `lmt/converter`: the converter API (the base class, records, the contract's types, the line-batch lane, JSON
// values and key lists, the coded errors) without the `.lct` library and the replay contract that `lmt` adds. `lmt`
// exports all of it too (the same classes and functions); lmt's own converters import this entry, so a conversion
// does not load the `.lct` and replay modules it does not use (~25 modules).
export {
  BaseConverter,
  type GetTrace,
  type GetTraceExtra,
  type Keys,
  type WriteTrace,
} from './convert/base-converter.js'
export {GetRecord, WriteRecord, NO_BLOCK_MASK, NO_LOCATION_SPEC_NAMES} from './convert/records.js'
export type {
  BatchInput,
  Converter,
  ConverterClass,
  ConverterFlagValues,
  FormatSample,
  ConverterOptions,
  InputContext,
  InputLine,
  Logger,
  Trace,
  TraceSource,
} from './convert/types.js'
// the line mappers' contract: LineMapperSpec, the mapper modules and functions, MappedLine, MappedBatch
export type * from './convert/line-mapper.js'
export {lineBatchesOf, mapInputBatches} from './convert/batch-input.js'
export type {ConvertSummary, InputSummary, InstanceSummary, TraceCounts} from './convert/summary.js'
// JSON values, key lists and line batches: also the `lmt/values` entry, for modules that run on worker threads
export * from './values.js'
export {LmtError, lmtError, isLmtError, type ErrorKind} from './errors.js'
export {pyFormatFixed, pyRound} from './util/pyfmt.js'
export {pyJsonDumps, type PyJsonValue} from './jsonl/py-json.js'
// LMCache's lookup-hash logs: their files, lines and chunk layouts (the lmcache_lookup converter reads them)
export {
  chunkBytesOf,
  dtypeBytes,
  hashKey64,
  lookupLogFiles,
  parseLookupLine,
  type LookupEvent,
} from './lmcache/lookup-log.js'
