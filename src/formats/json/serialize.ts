import {KeyList} from '../../hash/key-list.js'
import {pythonFloatRepr} from '../../util/float-repr.js'
import {JsonFloat} from './json-float.js'
import {SHORT_ESCAPES, unicodeEscape} from './json-escape.js'

/** A value that Python's `json.dumps` layout cannot express (function, symbol, class instance, cycle…). */
export class JsonSerializeError extends Error {
  constructor(
    readonly detail: string,
    readonly path: string,
  ) {
    super(`cannot serialize ${detail} at ${path || '$'}`)
    this.name = 'JsonSerializeError'
  }
}

// characters that need escaping: quote, backslash, C0 controls, and surrogates (only lone ones are escaped)
// eslint-disable-next-line no-control-regex -- C0 controls are exactly what must be escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/

/** A JSON string literal exactly as Python `json.dumps(s, ensure_ascii=False)` writes it. */
export function serializeString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"'
  let out = '"'
  let runStart = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    let rep: string | undefined
    if (c < 0x20 || c === 0x22 || c === 0x5c) rep = SHORT_ESCAPES[c] ?? unicodeEscape(c)
    else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff) {
        const d = s.charCodeAt(i + 1)
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++ // a valid pair stays raw
          continue
        }
      }
      rep = unicodeEscape(c)
    }
    if (rep !== undefined) {
      out += s.slice(runStart, i) + rep
      runStart = i + 1
    }
  }
  return out + s.slice(runStart) + '"'
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

type FieldsClass = abstract new (...args: never[]) => object
/** classes registered by the layers above (the convert records) whose instances serialize as their fields */
const fieldsClasses: FieldsClass[] = []

/**
 * Makes instances of `cls` serialize like plain objects (their own enumerable fields, in order) instead of being
 * refused as class instances. The record classes register themselves, so this layer needs not know them.
 */
export function serializeAsFields(cls: FieldsClass): void {
  if (!fieldsClasses.includes(cls)) fieldsClasses.push(cls)
}

function isFieldsObject(v: object): boolean {
  for (const cls of fieldsClasses) if (v instanceof cls) return true
  return false
}

function serializeInto(value: unknown, path: string, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value)
    case 'bigint':
      return value.toString()
    case 'number':
      if (Number.isInteger(value)) return value === 0 ? '0' : String(value)
      return pythonFloatRepr(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'object':
      break
    default:
      throw new JsonSerializeError(`a ${typeof value}`, path)
  }
  if (value === null) return 'null'
  if (value instanceof KeyList) return value.toJsonText()
  if (value instanceof JsonFloat) return pythonFloatRepr(value.value)
  if (seen.has(value)) throw new JsonSerializeError('a circular reference', path)
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]'
      const parts = new Array<string>(value.length)
      for (let i = 0; i < value.length; i++) parts[i] = serializeInto(value[i], `${path}[${i}]`, seen)
      return '[' + parts.join(', ') + ']'
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const items = value as unknown as ArrayLike<number | bigint>
      if (items.length === 0) return '[]'
      if (value instanceof Float32Array || value instanceof Float64Array)
        throw new JsonSerializeError('a float typed array', path)
      return '[' + Array.from(items, String).join(', ') + ']'
    }
    if (value instanceof Map) {
      if (value.size === 0) return '{}'
      const parts: string[] = []
      for (const [k, v] of value) {
        if (typeof k !== 'string') throw new JsonSerializeError(`a map key of type ${typeof k}`, path)
        if (v === undefined) continue
        parts.push(serializeString(k) + ': ' + serializeInto(v, `${path}.${k}`, seen))
      }
      return '{' + parts.join(', ') + '}'
    }
    if (isPlainObject(value) || isFieldsObject(value)) {
      const parts: string[] = []
      for (const k of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[k]
        if (v === undefined) continue
        parts.push(serializeString(k) + ': ' + serializeInto(v, `${path}.${k}`, seen))
      }
      // join() flattens: lines may wait in the sort window, and ropes would cost memory and GC time there
      return '{' + parts.join(', ') + '}'
    }
    throw new JsonSerializeError(`an object of class ${value.constructor?.name ?? 'unknown'}`, path)
  } finally {
    seen.delete(value)
  }
}

/**
 * Serializes like Python `json.dumps(obj, ensure_ascii=False)`: `, ` and `: ` separators, insertion order,
 * exact integers (bigint or integral number), Python float repr for other numbers and {@link JsonFloat}.
 * Properties whose value is `undefined` are omitted.
 */
export function serializeJson(value: unknown): string {
  if (value === undefined) throw new JsonSerializeError('undefined', '')
  return serializeInto(value, '', new Set())
}
