/**
 * Whether a JSON text nests arrays and objects deeper than `limit` (brackets inside strings do not count), found
 * without recursion: for texts read with `JSON.parse`, which nests without bound, before code that walks the value
 * recursively (structuredClone, JSON.stringify, schema validation) would exhaust the stack.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // skip the string: its escapes hide quotes
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
