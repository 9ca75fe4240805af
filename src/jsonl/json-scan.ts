// Validating scanners over JSON text for the fast lanes of line parsers: each returns the end position of a
// well-formed item or -1 when unsure (NaN/Infinity, leading zeros, control characters, deep nesting). They accept
// a subset of what parseJson accepts, so a caller that gets -1 falls back to the exact parser, which decides.

const MAX_DEPTH = 64

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

export function skipWs(s: string, p: number): number {
  while (isWs(s.charCodeAt(p))) p++
  return p
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

/** End of a well-formed JSON number at p (no NaN/Infinity, no leading zeros), or -1. */
export function numberEnd(s: string, p: number): number {
  if (s.charCodeAt(p) === 0x2d) p++
  let c = s.charCodeAt(p)
  if (c === 0x30) {
    p++
    if (isDigit(s.charCodeAt(p))) return -1
  } else if (c >= 0x31 && c <= 0x39) {
    do p++
    while (isDigit(s.charCodeAt(p)))
  } else return -1
  if (s.charCodeAt(p) === 0x2e) {
    if (!isDigit(s.charCodeAt(++p))) return -1
    do p++
    while (isDigit(s.charCodeAt(p)))
  }
  c = s.charCodeAt(p)
  if (c === 0x65 || c === 0x45) {
    c = s.charCodeAt(++p)
    if (c === 0x2b || c === 0x2d) p++
    if (!isDigit(s.charCodeAt(p))) return -1
    do p++
    while (isDigit(s.charCodeAt(p)))
  }
  return p
}

/** End of a string whose opening quote is at p (escapes validated, no control characters), or -1. */
export function stringEnd(s: string, p: number, allowEscapes: boolean): number {
  p++
  for (;;) {
    const c = s.charCodeAt(p)
    if (c === 0x22) return p + 1
    if (c < 0x20 || Number.isNaN(c)) return -1
    if (c === 0x5c) {
      if (!allowEscapes) return -1
      const e = s.charCodeAt(p + 1)
      if (e === 0x75) {
        for (let i = 2; i < 6; i++) {
          const h = s.charCodeAt(p + i)
          if (!(isDigit(h) || (h >= 0x61 && h <= 0x66) || (h >= 0x41 && h <= 0x46))) return -1
        }
        p += 6
        continue
      }
      if (
        e !== 0x22 &&
        e !== 0x5c &&
        e !== 0x2f &&
        e !== 0x62 &&
        e !== 0x66 &&
        e !== 0x6e &&
        e !== 0x72 &&
        e !== 0x74
      )
        return -1
      p += 2
      continue
    }
    p++
  }
}

/** End of any JSON value at p (validated, not built), or -1 when unsure. */
export function valueEnd(s: string, p: number, depth: number): number {
  const c = s.charCodeAt(p)
  if (c === 0x22) return stringEnd(s, p, true)
  if (c === 0x2d || isDigit(c)) return numberEnd(s, p)
  if (c === 0x74) return s.startsWith('true', p) ? p + 4 : -1
  if (c === 0x66) return s.startsWith('false', p) ? p + 5 : -1
  if (c === 0x6e) return s.startsWith('null', p) ? p + 4 : -1
  if (depth >= MAX_DEPTH) return -1
  if (c === 0x5b) {
    p = skipWs(s, p + 1)
    if (s.charCodeAt(p) === 0x5d) return p + 1
    for (;;) {
      p = valueEnd(s, p, depth + 1)
      if (p < 0) return -1
      p = skipWs(s, p)
      const d = s.charCodeAt(p)
      if (d === 0x5d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWs(s, p + 1)
    }
  }
  if (c === 0x7b) {
    p = skipWs(s, p + 1)
    if (s.charCodeAt(p) === 0x7d) return p + 1
    for (;;) {
      if (s.charCodeAt(p) !== 0x22) return -1
      p = stringEnd(s, p, true)
      if (p < 0) return -1
      p = skipWs(s, p)
      if (s.charCodeAt(p) !== 0x3a) return -1
      p = valueEnd(s, skipWs(s, p + 1), depth + 1)
      if (p < 0) return -1
      p = skipWs(s, p)
      const d = s.charCodeAt(p)
      if (d === 0x7d) return p + 1
      if (d !== 0x2c) return -1
      p = skipWs(s, p + 1)
    }
  }
  return -1
}
