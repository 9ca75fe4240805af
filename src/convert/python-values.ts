import {JsonFloat} from '../formats/json/json-float.js'
import {parsePythonIntText} from '../formats/json/trim.js'

/**
 * Python's `int(value)` for the value kinds JSON can hold: integers exact, floats truncated toward zero,
 * booleans 1/0, strings of ASCII decimal digits (underscores between digits, surrounding whitespace).
 * Returns undefined for anything `int()` would reject (null, arrays, objects, NaN, ±∞, other strings).
 */
export function pythonInt(value: unknown): bigint | undefined {
  switch (typeof value) {
    case 'bigint':
      return value
    case 'number':
      return Number.isFinite(value) ? BigInt(Math.trunc(value)) : undefined
    case 'boolean':
      return value ? 1n : 0n
    case 'string':
      return parsePythonIntText(value)
    default:
      if (value instanceof JsonFloat)
        return Number.isFinite(value.value) ? BigInt(Math.trunc(value.value)) : undefined
      return undefined
  }
}

/** Python truthiness of a JSON value. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false
  if (value instanceof JsonFloat) return value.value !== 0 // NaN is truthy in Python
  if (value instanceof Map) return value.size > 0
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'string') return value.length > 0
  if (typeof value === 'number') return value !== 0
  if (typeof value === 'bigint') return value !== 0n
  if (typeof value === 'boolean') return value
  return true
}

type Numeric = {kind: 'int'; v: bigint} | {kind: 'float'; v: number}

function asNumeric(value: unknown): Numeric | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) ? {kind: 'int', v: BigInt(value)} : {kind: 'float', v: value}
  if (typeof value === 'bigint') return {kind: 'int', v: value}
  if (typeof value === 'boolean') return {kind: 'int', v: value ? 1n : 0n}
  if (value instanceof JsonFloat) return {kind: 'float', v: value.value}
  return undefined
}

function numericEquals(a: Numeric, b: Numeric): boolean {
  if (a.kind === 'int' && b.kind === 'int') return a.v === b.v
  if (a.kind === 'float' && b.kind === 'float') return a.v === b.v
  const i = a.kind === 'int' ? a.v : (b.v as bigint)
  const f = a.kind === 'float' ? a.v : (b.v as number)
  return Number.isInteger(f) && BigInt(f) === i
}

/** Python `==` between two JSON values (numbers across int/float/bool, arrays element-wise, objects unordered). */
export function pythonEquals(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b
  if (a === null || b === null) return a === b
  const na = asNumeric(a)
  const nb = asNumeric(b)
  if (na || nb) return na !== undefined && nb !== undefined && numericEquals(na, nb)
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!pythonEquals(a[i], b[i])) return false
    return true
  }
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false
    for (const [k, v] of a) if (!b.has(k) || !pythonEquals(v, b.get(k))) return false
    return true
  }
  return false
}

let nanCounter = 0

/**
 * A string that is equal for two scalar values exactly when Python's dict would treat them as the same key:
 * strings by value, numbers and booleans by numeric value (`1`, `1.0`, `true` alike; `"1"` apart).
 * Returns undefined for arrays and objects (unhashable in Python).
 */
export function pythonHashKey(value: unknown): string | undefined {
  if (typeof value === 'string') return 's:' + value
  if (value === null) return 'null'
  const n = asNumeric(value)
  if (!n) return undefined
  if (n.kind === 'int') return 'n:' + n.v.toString()
  if (Number.isNaN(n.v)) return 'nan:' + nanCounter++ // every NaN object is its own key
  if (Number.isInteger(n.v)) return 'n:' + BigInt(n.v).toString()
  return 'n:' + String(n.v)
}
