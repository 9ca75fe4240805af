// text_trace's encodings with the pieces between added tokens remembered (see text-segments.ts for why that is
// exact): a text whose long pieces were seen before is encoded with those pieces left out, in one call to the
// Rust core, and their remembered ids spliced back in. Every result is checked against the split: where the ids
// do not hold the expected added tokens in order, the text is encoded whole.
import type {SegmentCache} from './segment-cache.js'
import type {SegmentSplitter, SplitText} from './segments.js'

export type Encoder = (text: string) => Promise<number[]>

/**
 * Where the added tokens `tokens` sit in `ids` (one index each, in order), or undefined when `ids` holds any other
 * added token id, or these in another order or number.
 */
export function tokenPositions(
  ids: ArrayLike<number>,
  tokens: readonly number[],
  added: ReadonlySet<number>,
): Int32Array | undefined {
  const at = new Int32Array(tokens.length)
  let k = 0
  for (let i = 0; i < ids.length; i++) {
    if (!added.has(ids[i])) continue
    if (k >= tokens.length || ids[i] !== tokens[k]) return undefined
    at[k++] = i
  }
  return k === tokens.length ? at : undefined
}

// a key of its own: a slice of the text would keep the whole text alive in the cache
const ownCopy = (s: string): string => Buffer.from(s, 'utf16le').toString('utf16le')

/** Keeps the long pieces of `split` that are not `known`, from `ids` (the encoding of the text, or of the reduced text). */
function remember(
  cache: SegmentCache,
  split: SplitText,
  known: readonly (Uint32Array | undefined)[],
  ids: readonly number[],
  at: Int32Array,
): void {
  for (let i = 0; i < split.pieces.length; i++) {
    const piece = split.pieces[i]
    if (known[i] || !cache.keeps(piece)) continue
    const from = i === 0 ? 0 : at[i - 1] + 1
    const to = i < at.length ? at[i] : ids.length
    cache.set(ownCopy(piece), Uint32Array.from(ids.slice(from, to)))
  }
}

/** The text with the known pieces left out: the added tokens stay, so the other pieces are encoded as before. */
function reduce(
  splitter: SegmentSplitter,
  split: SplitText,
  known: readonly (Uint32Array | undefined)[],
): string {
  const parts: string[] = []
  for (let i = 0; i < split.pieces.length; i++) {
    if (!known[i]) parts.push(split.pieces[i])
    if (i < split.tokens.length) parts.push(splitter.content(split.tokens[i]))
  }
  return parts.join('')
}

/** Whether `reduced` splits into the same added tokens, the known pieces now empty, the others unchanged. */
function splitsAsExpected(reduced: SplitText, split: SplitText, known: readonly (Uint32Array | undefined)[]) {
  if (reduced.tokens.length !== split.tokens.length) return false
  for (let i = 0; i < split.tokens.length; i++) if (reduced.tokens[i] !== split.tokens[i]) return false
  for (let i = 0; i < split.pieces.length; i++)
    if (reduced.pieces[i] !== (known[i] ? '' : split.pieces[i])) return false
  return true
}

/** The ids of the text: the reduced encoding's pieces, with the known pieces' ids in their places. */
function splice(
  split: SplitText,
  known: readonly (Uint32Array | undefined)[],
  ids: number[],
  at: Int32Array,
) {
  const out: number[] = []
  for (let i = 0; i < split.pieces.length; i++) {
    const piece = known[i]
    if (piece) for (const id of piece) out.push(id)
    else {
      const from = i === 0 ? 0 : at[i - 1] + 1
      const to = i < at.length ? at[i] : ids.length
      for (let j = from; j < to; j++) out.push(ids[j])
    }
    if (i < split.tokens.length) out.push(split.tokens[i])
  }
  return out
}

/** `encode` with the long pieces of earlier texts remembered in `cache`; the ids are those of `encode(text)`. */
export function segmentEncoder(splitter: SegmentSplitter, cache: SegmentCache, encode: Encoder): Encoder {
  const whole = async (text: string, split: SplitText): Promise<number[]> => {
    const ids = await encode(text)
    const at = tokenPositions(ids, split.tokens, splitter.addedIds)
    if (at) remember(cache, split, [], ids, at)
    return ids
  }
  return async (text) => {
    const split = splitter.split(text)
    const known = split.pieces.map((p) => (cache.keeps(p) ? cache.get(p) : undefined))
    if (!known.some(Boolean)) return whole(text, split)
    const reduced = reduce(splitter, split, known)
    if (!splitsAsExpected(splitter.split(reduced), split, known)) return whole(text, split)
    const ids = await encode(reduced)
    const at = tokenPositions(ids, split.tokens, splitter.addedIds)
    if (!at) return whole(text, split)
    remember(cache, split, known, ids, at)
    return splice(split, known, ids, at)
  }
}
