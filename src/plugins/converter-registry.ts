import type {ConverterClass, FormatSample} from '../convert/types.js'
import {formatNameOf} from './format-name.js'

export interface ConverterRegistration {
  format: string
  className: string
  cls: ConverterClass
  /** `built-in`, `dir:<path>`, `module:<spec>` or `plugin:<package>` */
  source: string
  path?: string
  aliases: string[]
  description: string
  /** Registrations this one replaced (last writer wins). */
  shadowed: Array<{className: string; source: string}>
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/**
 * Format names and aliases → converter classes. Registration is last-writer-wins with a warning; registering the
 * very same class again is silent. Lookup prefers a format name over an alias.
 */
export class ConverterRegistry {
  private readonly byName = new Map<string, ConverterRegistration>()
  private readonly byAlias = new Map<string, ConverterRegistration>()
  readonly warnings: string[] = []

  constructor(private readonly onWarning: (message: string) => void = () => {}) {}

  warn(message: string): void {
    this.warnings.push(message)
    this.onWarning(message)
  }

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
      this.warn(
        `format "${format}": ${cls.name} from ${source} overrides ${previous.className} from ${previous.source}`,
      )
      reg.shadowed.push(...previous.shadowed, {className: previous.className, source: previous.source})
    }
    this.byName.set(format, reg)
    for (const alias of reg.aliases) {
      const prev = this.byAlias.get(alias)
      if (prev && prev.cls !== cls)
        this.warn(
          `format "${alias}": ${cls.name} from ${source} overrides ${prev.className} from ${prev.source}`,
        )
      this.byAlias.set(alias, reg)
    }
    return reg
  }

  resolve(name: string): ConverterRegistration | undefined {
    return this.byName.get(name) ?? this.byAlias.get(name)
  }

  /** Registrations sorted by format name. */
  list(): ConverterRegistration[] {
    return [...this.byName.values()].sort((a, b) => (a.format < b.format ? -1 : a.format > b.format ? 1 : 0))
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

  /** Every format name and alias, sorted (for "unknown format" messages). */
  knownNames(): string[] {
    return [...new Set([...this.byName.keys(), ...this.byAlias.keys()])].sort()
  }
}
