type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array

/**
 * A copy of the first `used` elements of `a` (all of them by default) in a new array of the same kind with `size`
 * elements, the rest zero: how lmt's growing typed arrays grow. Not for Buffers (allocate those with Buffer.alloc*).
 */
export function grown<T extends TypedArray>(a: T, size: number, used = a.length): T {
  const b = new (a.constructor as new (n: number) => T)(size)
  b.set((used === a.length ? a : a.subarray(0, used)) as never)
  return b
}
