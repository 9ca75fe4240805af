import type {ConverterClass, ConverterRegistration, FormatSample} from '../convert/types.js'
import {PluginRegistry} from './plugin-registry.js'

export type {ConverterRegistration}

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

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/**
 * Format names and aliases → converter classes. Registration is last-writer-wins with a warning; registering the
 * very same class again is silent. Lookup prefers a format name over an alias.
 */
export class ConverterRegistry extends PluginRegistry<ConverterRegistration> {
  constructor(onWarning?: (message: string) => void) {
    super(
      'format',
      (r) => `${r.className} from ${r.source}`,
      (a, b) => a.cls === b.cls,
      onWarning,
    )
  }

  register(cls: ConverterClass, source: string, path?: string): ConverterRegistration | undefined {
    const format = formatNameOf(cls.name)
    if (format === undefined) return undefined
    const reg: ConverterRegistration = {
      name: format,
      format,
      className: cls.name,
      cls,
      source,
      path,
      aliases: stringList((cls as {aliases?: unknown}).aliases),
      description: typeof cls.description === 'string' ? cls.description : '',
      shadowed: [],
    }
    const previous = this.named(format)
    if (previous && previous.cls !== cls)
      reg.shadowed.push(...previous.shadowed, {className: previous.className, source: previous.source})
    return this.put(reg, reg.aliases)
  }

  /**
   * The registrations whose converter says a file starting with `line` looks like its input (sorted by format);
   * a converter without `looksLike`, or one that throws in it, is passed over.
   */
  recognise(line: string): ConverterRegistration[] {
    // a fresh sample for each converter: one cannot change what the next one sees
    const sample = (): FormatSample => {
      try {
        return {line, record: JSON.parse(line)}
      } catch {
        return {line, record: undefined}
      }
    }
    return this.list().filter((reg) => {
      try {
        const looksLike = (reg.cls as {looksLike?: unknown}).looksLike
        return typeof looksLike === 'function' && looksLike.call(reg.cls, sample()) === true
      } catch {
        return false
      }
    })
  }
}
