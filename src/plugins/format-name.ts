const UPPER = /\p{Uppercase}/u
const LOWER = /\p{Lowercase}/u

/**
 * Snake case of a class name, the original converter's rule: before an upper-case character at index > 0 insert
 * `_` when the previous character is lower case or the next one is; then lower-case everything.
 */
export function camelToSnake(name: string): string {
  const chars = [...name]
  let out = ''
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]
    if (i > 0 && UPPER.test(c)) {
      const prevLower = LOWER.test(chars[i - 1])
      const nextLower = i + 1 < chars.length && LOWER.test(chars[i + 1])
      if (prevLower || nextLower) out += '_'
    }
    out += c
  }
  return out.toLowerCase()
}

/** `QwenBailianConverter` → `qwen_bailian`; undefined when the name does not follow the convention. */
export function formatNameOf(className: string): string | undefined {
  if (!className.endsWith('Converter') || className === 'Converter' || className === 'BaseConverter')
    return undefined
  return camelToSnake(className.slice(0, -'Converter'.length))
}
