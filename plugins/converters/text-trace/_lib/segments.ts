// Where the Rust core splits a text before encoding it. HF tokenizers first cut the input at its added tokens
// (leftmost-longest, on the raw text for tokens with normalized=false), then normalize, pre-tokenize and encode each
// piece between them on its own. So when every added token is matched on the raw text with no strip or single-word
// rule, and the post-processor adds nothing, the ids of a text are, piece by piece, the ids of each piece encoded
// alone with the added tokens' ids between them: a piece repeated across requests (a chat's history) need not be
// encoded again. Any other tokenizer gets no splitter, and its texts are encoded whole.
import {readFileSync} from 'node:fs'

/** A text cut at its added tokens: `pieces.length === tokens.length + 1`, piece i before token i. */
export interface SplitText {
  pieces: string[]
  /** the added tokens' ids, in order */
  tokens: number[]
}

export interface SegmentSplitter {
  split(text: string): SplitText
  /** the ids of every added token: a piece's own ids never hold one when the tokenizer is sound */
  readonly addedIds: ReadonlySet<number>
  /** the text of an added token's id */
  content(id: number): string
}

interface AddedToken {
  id?: unknown
  content?: unknown
  normalized?: unknown
  lstrip?: unknown
  rstrip?: unknown
  single_word?: unknown
}

interface TokenizerHead {
  truncation?: unknown
  padding?: unknown
  added_tokens?: unknown
  post_processor?: unknown
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Splits at `tokens` (content → id) as the Rust core's leftmost-longest matcher does. */
export function splitterOf(tokens: Map<string, number>): SegmentSplitter {
  // at each position a regex tries its alternatives in order: longest first is leftmost-longest
  const contents = [...tokens.keys()].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(contents.map(escape).join('|'), 'g')
  const byId = new Map([...tokens].map(([content, id]) => [id, content]))
  return {
    addedIds: new Set(tokens.values()),
    content: (id) => byId.get(id) as string,
    split(text) {
      const pieces: string[] = []
      const ids: number[] = []
      let from = 0
      for (const m of text.matchAll(pattern)) {
        pieces.push(text.slice(from, m.index))
        ids.push(tokens.get(m[0]) as number)
        from = m.index + m[0].length
      }
      pieces.push(text.slice(from))
      return {pieces, tokens: ids}
    },
  }
}

/** The added tokens (content → id) when every one is matched on the raw text, else undefined. */
function plainAddedTokens(list: unknown): Map<string, number> | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined
  const tokens = new Map<string, number>()
  for (const t of list as AddedToken[]) {
    if (typeof t.content !== 'string' || t.content === '' || typeof t.id !== 'number') return undefined
    if (t.normalized !== false || t.lstrip !== false || t.rstrip !== false || t.single_word !== false)
      return undefined
    if (tokens.has(t.content)) return undefined
    tokens.set(t.content, t.id)
  }
  return new Set(tokens.values()).size === tokens.size ? tokens : undefined
}

/** A post-processor that adds no token: none, or ByteLevel (which only trims offsets). */
const addsNothing = (p: unknown): boolean =>
  p === null || (typeof p === 'object' && (p as {type?: unknown}).type === 'ByteLevel')

/**
 * The splitter of a parsed tokenizer.json, or undefined where it is not exact.
 * `idOf` gives the loaded tokenizer's id of a token (the Rust core may number added tokens otherwise than the file).
 */
export function splitterForHead(
  head: TokenizerHead,
  idOf?: (content: string) => number | null | undefined,
): SegmentSplitter | undefined {
  if (head.truncation !== null || head.padding !== null || !addsNothing(head.post_processor)) return undefined
  const tokens = plainAddedTokens(head.added_tokens)
  if (!tokens) return undefined
  if (idOf)
    for (const content of tokens.keys()) {
      const id = idOf(content)
      if (typeof id !== 'number') return undefined
      tokens.set(content, id)
    }
  return new Set(tokens.values()).size === tokens.size ? splitterOf(tokens) : undefined
}

/** The parsed tokenizer.json, as the splitter reads it; undefined when it cannot be read or has no added tokens. */
export function readTokenizerHead(path: string): TokenizerHead | undefined {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as unknown
    return json !== null && typeof json === 'object' && 'added_tokens' in json
      ? (json as TokenizerHead)
      : undefined
  } catch {
    return undefined
  }
}
