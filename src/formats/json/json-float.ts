/**
 * A JSON number literal written as a float (with `.`, `e` or `E`, or NaN/±Infinity).
 * Kept apart from integers so `1.0` is re-serialized as `1.0` and conversion rules can tell the kinds apart.
 */
export class JsonFloat {
  constructor(readonly value: number) {}

  valueOf(): number {
    return this.value
  }

  toString(): string {
    return String(this.value)
  }
}

/** A value produced by the lossless parser. Objects are insertion-ordered maps. */
export type JsonValue = null | boolean | number | bigint | string | JsonFloat | JsonValue[] | JsonObject
export type JsonObject = Map<string, JsonValue>

export function isJsonObject(value: unknown): value is JsonObject {
  return value instanceof Map
}
