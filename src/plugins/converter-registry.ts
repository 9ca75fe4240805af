import type {ConverterClass, ConverterRegistration, FormatSample} from '../convert/types.js'

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

const byFormat = (a: ConverterRegistration, b: ConverterRegistration) =>
  a.format < b.format ? -1 : a.format > b.format ? 1 : 0
const described = (r: ConverterRegistration) => `${r.className} from ${r.source}`

/**
 * Format names and aliases → converter classes. Registration is last-writer-wins with a warning naming both;
 * registering the very same class again is silent. Lookup prefers a format name over an alias.
 */
export class ConverterRegistry {
  private readonly byName = new Map<string, ConverterRegistration>()
  private readonly byAlias = new Map<string, ConverterRegistration>()

  constructor(readonly warn: (message: string) => void = () => {}) {}

  register(cls: ConverterClass, source: string, path?: string): ConverterRegistration | undefined {
    const format = formatNameOf(cls.name)
    if (format === undefined) return undefined
    const reg: ConverterRegistration = {
      format,
      className: cls.name,
      cls,
      source,
      path,
      aliases: stringList((cls as {aliases?: unknown}).aliases),
      description: typeof cls.description === 'string' ? cls.description : '',
      shadowed: [],
    }
    const previous = this.byName.get(format)
    if (previous?.cls === cls) return previous
    if (previous) {
      reg.shadowed.push(...previous.shadowed, {className: previous.className, source: previous.source})
      this.warn(`format "${format}": ${described(reg)} overrides ${described(previous)}`)
    }
    this.byName.set(format, reg)
    for (const alias of reg.aliases) {
      const prev = this.byAlias.get(alias)
      if (prev && prev.cls !== cls)
        this.warn(`format "${alias}": ${described(reg)} overrides ${described(prev)}`)
      this.byAlias.set(alias, reg)
    }
    return reg
  }

  /**
   * The registration of a name, else of an alias; else, ignoring case (`-f MOONCAKE`, as policy names are read),
   * of the one name or alias that matches (none when two differ only in case).
   */
  resolve(name: string): ConverterRegistration | undefined {
    const exact = this.byName.get(name) ?? this.byAlias.get(name)
    if (exact !== undefined) return exact
    const lower = name.toLowerCase()
    const found = new Set<ConverterRegistration>()
    for (const table of [this.byName, this.byAlias])
      for (const [key, r] of table) if (key.toLowerCase() === lower) found.add(r)
    return found.size === 1 ? [...found][0] : undefined
  }

  /** Registrations sorted by format. */
  list(): ConverterRegistration[] {
    return [...this.byName.values()].sort(byFormat)
  }

  /** Every format and alias, sorted (for "unknown …" messages). */
  knownNames(): string[] {
    return [...new Set([...this.byName.keys(), ...this.byAlias.keys()])].sort()
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
