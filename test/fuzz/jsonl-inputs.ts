// Mutations of JSONL lines for the fuzz tests. Lines are bytes (invalid UTF-8 must be expressible); each mutation
// keeps a line bounded (at most a few MiB), so one input never needs more than a bounded amount of memory.
import type {Random} from './random.js'

type Mutation = (rng: Random, line: Buffer) => Buffer

const ascii = (s: string) => Buffer.from(s, 'latin1')

const ENDS_SCALAR = new Set([0x20, 0x2c, 0x5d, 0x7d, 0x3a, 0x5b, 0x7b]) // space , ] } : [ {

/** Spans of the scalar values in a line (after `:`, `[` or `,`): a replacement there keeps the line JSON-like. */
function valueSpans(line: Buffer): Array<[number, number]> {
  const spans: Array<[number, number]> = []
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c !== 0x3a && c !== 0x5b && c !== 0x2c) continue
    let p = i + 1
    while (line[p] === 0x20) p++
    let q = p
    if (line[q] === 0x22) {
      q++
      while (q < line.length && line[q] !== 0x22) q += line[q] === 0x5c ? 2 : 1
      q++
      i = q - 1 // a string's inside holds no value start
    } else while (q < line.length && !ENDS_SCALAR.has(line[q])) q++
    if (q > p && q <= line.length) spans.push([p, q])
  }
  return spans
}

function replaceValue(rng: Random, line: Buffer, value: Buffer): Buffer {
  const spans = valueSpans(line)
  if (spans.length === 0) return Buffer.concat([line, value])
  const [p, q] = rng.pick(spans)
  return Buffer.concat([line.subarray(0, p), value, line.subarray(q)])
}

function insertAt(rng: Random, line: Buffer, piece: Buffer): Buffer {
  const at = rng.int(line.length + 1)
  return Buffer.concat([line.subarray(0, at), piece, line.subarray(at)])
}

const DEPTHS = [63, 64, 65, 999, 1000, 1001, 5000, 100_000]

function nesting(rng: Random): Buffer {
  const depth = rng.pick(DEPTHS)
  const kind = rng.int(3)
  if (kind === 0) return ascii('['.repeat(depth) + ']'.repeat(depth))
  if (kind === 1) return ascii('{"k": '.repeat(depth) + '1' + '}'.repeat(depth))
  return ascii('['.repeat(depth)) // unterminated
}

const NUMBERS = [
  '1e309',
  '-1e309',
  '1E400',
  '1e-400',
  '4.9e-324',
  '-0',
  '-0.0',
  '1.0',
  '0.0',
  '1e0',
  'NaN',
  'Infinity',
  '-Infinity',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1' + '0'.repeat(400),
  '01',
  '1.',
  '.5',
  '+1',
  '1e',
  '-',
  '0x10',
  '1_000',
  'true',
  'null',
  '"16"',
  '" 32 "',
  '"1_6"',
  '"48.0"',
  '[]',
  '{}',
  '""',
]

function oddNumber(rng: Random): Buffer {
  if (rng.chance(0.15)) return ascii((rng.chance(0.5) ? '-' : '') + '7'.repeat(1 + rng.int(20_000)))
  return ascii(rng.pick(NUMBERS))
}

const BAD_UTF8 = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xe2, 0x82],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
]
const ODD_TEXT = [
  '\u0000',
  '\\u0000',
  '\\ud800',
  '\\udfff\\ud800',
  '\\u00zz',
  '\\x',
  '\t',
  '\f',
  '\r',
  '\v',
  '\u2028',
  '\ufeff',
  '\u00a0',
  '"',
  '\\',
  '},{',
  ']]',
  '{{',
]

/** A long run: a string of up to 2 MiB or an array of up to 200,000 numbers, in place of a value. */
function longValue(rng: Random): Buffer {
  if (rng.chance(0.5)) return ascii('"' + 'x'.repeat(rng.int(2 << 20)) + '"')
  const n = rng.int(200_000)
  return ascii('[' + Array.from({length: n}, (_, i) => (i * 7919) % 100_003).join(', ') + ']')
}

/** The line with one `"key": value` pair repeated, the copy's value replaced (a repeated key keeps the last value). */
function repeatKey(rng: Random, line: Buffer): Buffer {
  const s = line.toString('latin1')
  const keys = [...s.matchAll(/"([A-Za-z_]+)"\s*:/g)]
  if (keys.length === 0 || !s.trimEnd().endsWith('}')) return line
  const key = rng.pick(keys)[1]
  const value = rng.chance(0.5) ? rng.pick(NUMBERS) : '"x"'
  const end = s.lastIndexOf('}')
  return ascii(s.slice(0, end) + `, "${key}": ${value}` + s.slice(end))
}

const MUTATIONS: Mutation[] = [
  (rng, l) => {
    const b = Buffer.from(l)
    for (let n = 1 + rng.int(4); n > 0 && b.length > 0; n--) b[rng.int(b.length)] = rng.int(256)
    return b
  },
  (rng, l) => l.subarray(0, rng.int(l.length + 1)),
  (rng, l) => {
    if (l.length === 0) return l
    const from = rng.int(l.length)
    return insertAt(rng, l, l.subarray(from, from + 1 + rng.int(Math.min(64, l.length - from))))
  },
  (rng, l) => replaceValue(rng, l, nesting(rng)),
  (rng, l) => insertAt(rng, l, nesting(rng)),
  (rng, l) => replaceValue(rng, l, oddNumber(rng)),
  (rng, l) => insertAt(rng, l, Buffer.from(rng.pick(BAD_UTF8))),
  (rng, l) => insertAt(rng, l, Buffer.from(rng.pick(ODD_TEXT), 'utf8')),
  (rng, l) => replaceValue(rng, l, Buffer.from(`"${rng.pick(ODD_TEXT)}"`, 'utf8')),
  (rng, l) => replaceValue(rng, l, longValue(rng)),
  repeatKey,
]

/** One to three mutations of `line`. */
export function mutateLine(rng: Random, line: Buffer): Buffer {
  let out = line
  for (let n = 1 + rng.int(3); n > 0; n--) out = rng.pick(MUTATIONS)(rng, out)
  return out
}

/** Inputs stay below the size from which converters map lines on worker threads (4 MiB): fast and bounded. */
const MAX_INPUT_BYTES = 3 << 20

/**
 * A mutated JSONL input from `seed` lines: a window of 1–12 lines, each mutated with probability 1/2, with blank
 * lines, CRLF endings and a missing final newline mixed in.
 */
export function mutateJsonl(rng: Random, seedLines: readonly Buffer[]): Buffer {
  const start = rng.int(seedLines.length)
  const window = seedLines.slice(start, start + 1 + rng.int(12))
  const out: Buffer[] = []
  let bytes = 0
  for (const line of window) {
    if (rng.chance(0.05)) out.push(ascii(rng.pick(['', '   ', '\t'])))
    let mutated = rng.chance(0.5) ? mutateLine(rng, line) : line
    if (bytes + mutated.length > MAX_INPUT_BYTES) mutated = line // keep inputs small: one long line at most
    bytes += mutated.length
    out.push(mutated)
  }
  const eol = rng.chance(0.1) ? '\r\n' : '\n'
  const text = Buffer.concat(out.flatMap((l) => [l, ascii(eol)]))
  return rng.chance(0.1) ? text.subarray(0, text.length - eol.length) : text
}

/** The non-blank lines of a seed file as bytes. */
export function seedLines(text: Buffer): Buffer[] {
  const lines: Buffer[] = []
  let start = 0
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && text[i] !== 0x0a) continue
    const line = text.subarray(start, i)
    if (line.toString('latin1').trim() !== '') lines.push(line)
    start = i + 1
  }
  return lines
}
