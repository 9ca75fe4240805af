// How Python's json.dumps escapes a character of a string: the one table of lmt's two JSON writers.

/** The escapes with a short form: quote, backslash and five controls; every other escaped character is `\uXXXX`. */
export const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
}

/** `\uXXXX` of a UTF-16 code unit, in lower-case hex as Python writes it. */
export function unicodeEscape(c: number): string {
  return '\\u' + c.toString(16).padStart(4, '0')
}
