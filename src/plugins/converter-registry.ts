import type {ConverterClass, ConverterRegistration, FormatSample} from '../convert/types.js'
import {formatNameOf} from './format-name.js'
import {PluginRegistry} from './plugin-registry.js'

export type {ConverterRegistration}

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
      {
        noun: 'format',
        describe: (r) => `${r.className} from ${r.source}`,
        same: (a, b) => a.cls === b.cls,
      },
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
