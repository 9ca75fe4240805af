// `lmt/values`: JSON values and key lists as Python reads and writes them, the part of `lmt` that a line decoder on
// a worker thread needs. `lmt` exports all of it too (the same classes and functions); a module that runs on a
// worker imports this entry instead, which loads a dozen of lmt's modules where `lmt` loads ~65 (the converter
// framework, the `.lct` library, the replay contract): ~45 ms less before a worker's first batch.
export {pythonEquals, pythonHashKey, pythonInt, pythonTruthy} from './convert/python-values.js'
export {KeyList, KeySlabs, type HashInput} from './hash/key-list.js'
export {hashInt64, prefixHash, tokensToBlockIds} from './hash/prefix-hash.js'
export {JsonFloat, isJsonObject, type JsonObject, type JsonValue} from './jsonl/json-float.js'
export {JsonDepthError, JsonSyntaxError, MAX_JSON_DEPTH, parseJson} from './jsonl/parse.js'
export {JsonSerializeError, serializeJson, serializeString} from './jsonl/serialize.js'
export {pythonFloatRepr} from './util/float-repr.js'
export {pythonStrip} from './jsonl/trim.js'
export {LineBatch, type LineBatchData} from './jsonl/line-batch.js'
// LMT_PLAIN=1: a converter with a fast lane of its own leaves it out too
export {plainPaths} from './util/plain.js'
