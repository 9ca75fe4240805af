/**
 * Python `str.strip()` semantics: the characters Python treats as whitespace.
 * U+0009–U+000D, U+001C–U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
 */
export function isPythonSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)
  if (c < 0x85) return false
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  )
}

/** Trims like Python's `str.strip()` (JS `trim()` differs: it strips U+FEFF and keeps U+001C–U+001F, U+0085). */
export function pythonStrip(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && isPythonSpace(text.charCodeAt(start))) start++
  while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--
  return start === 0 && end === text.length ? text : text.slice(start, end)
}

/** Python `int()` accepts this shape of decimal text (ASCII digits only, underscores between digits). */
const PY_INT_TEXT = /^[+-]?[0-9]+(?:_[0-9]+)*$/

/** Parses text that matches {@link PY_INT_TEXT} after stripping; undefined otherwise. */
export function parsePythonIntText(text: string): bigint | undefined {
  const t = pythonStrip(text)
  if (!PY_INT_TEXT.test(t)) return undefined
  return BigInt(t.replace(/_/g, ''))
}

/** The text without a leading UTF-8 byte order mark (editors on Windows write one into JSON files). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
