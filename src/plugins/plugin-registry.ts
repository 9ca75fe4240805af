/** What every registered plugin carries: its name and where it came from. */
export interface PluginEntry {
  /** the name users type (a converter's format, a level's name) */
  readonly name: string
  /** `built-in`, `dir:<path>`, `module:<spec>`, `plugin:<package>` or `programmatic` */
  readonly source: string
}

/**
 * Name → plugin for one plugin kind (converters, replay levels): last writer wins with a warning naming both,
 * registering the very same plugin again is silent, aliases resolve after names. Every warning goes to `warn`.
 */
export class PluginRegistry<E extends PluginEntry> {
  private readonly byName = new Map<string, E>()
  private readonly byAlias = new Map<string, E>()

  /**
   * `noun` (`format`, `replay level`) and `describe` (a registration as an override warning names it) word the
   * warnings; `same` says whether two registrations are the very same plugin (registering it again is silent).
   */
  constructor(
    private readonly noun: string,
    private readonly describe: (entry: E) => string,
    private readonly same: (a: E, b: E) => boolean,
    readonly warn: (message: string) => void = () => {},
  ) {}

  /** Adds `entry` under its name and `aliases`; returns the registration in effect for that name. */
  protected put(entry: E, aliases: readonly string[] = []): E {
    const {noun, describe, same} = this
    const previous = this.byName.get(entry.name)
    if (previous && same(previous, entry)) return previous
    if (previous) this.warn(`${noun} "${entry.name}": ${describe(entry)} overrides ${describe(previous)}`)
    this.byName.set(entry.name, entry)
    for (const alias of aliases) {
      const prev = this.byAlias.get(alias)
      if (prev && !same(prev, entry))
        this.warn(`${noun} "${alias}": ${describe(entry)} overrides ${describe(prev)}`)
      this.byAlias.set(alias, entry)
    }
    return entry
  }

  /** The registration of exactly this name (not an alias). */
  protected named(name: string): E | undefined {
    return this.byName.get(name)
  }

  /**
   * The registration of a name, else of an alias; else, ignoring case (`-f MOONCAKE`, as policy names are read),
   * of the one name or alias that matches (none when two differ only in case).
   */
  resolve(name: string): E | undefined {
    const exact = this.byName.get(name) ?? this.byAlias.get(name)
    if (exact !== undefined) return exact
    const lower = name.toLowerCase()
    const found = new Set<E>()
    for (const table of [this.byName, this.byAlias])
      for (const [key, e] of table) if (key.toLowerCase() === lower) found.add(e)
    return found.size === 1 ? [...found][0] : undefined
  }

  /** Registrations in the order their names were first registered. */
  protected inOrder(): E[] {
    return [...this.byName.values()]
  }

  /** Registrations sorted by name. */
  list(): E[] {
    return [...this.byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  /** Registered names, sorted. */
  names(): string[] {
    return this.list().map((e) => e.name)
  }

  /** Every name and alias, sorted (for "unknown …" messages). */
  knownNames(): string[] {
    return [...new Set([...this.byName.keys(), ...this.byAlias.keys()])].sort()
  }
}
