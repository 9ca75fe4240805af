import {isReplayLevel, type ReplayLevel} from '../replay/level.js'

const programmatic: Array<{level: ReplayLevel; source: string}> = []

/** Registers a level from code (tests, embedding); it is added after discovered ones. */
export function registerReplayLevel(level: ReplayLevel, source = 'programmatic'): void {
  programmatic.push({level, source})
}

/** The levels registered from code, in order. */
export function programmaticLevels(): ReadonlyArray<{level: ReplayLevel; source: string}> {
  return programmatic
}

/**
 * Whether `value` is a replay level; an export (`exportName`, in `at`) that is an object with a name looks like a level
 * that lacks something, which `warn` is told.
 */
export function isLevel(
  value: unknown,
  exportName: string | undefined,
  at: string,
  warn: (m: string) => void,
): value is ReplayLevel {
  if (isReplayLevel(value)) return true
  const named =
    value !== null && typeof value === 'object' && typeof (value as {name?: unknown}).name === 'string'
  if (exportName !== undefined && named)
    warn(
      `${exportName} in ${at} is not a replay level (it needs a name, createTarget and buildDispatcher); ignored`,
    )
  return false
}

/**
 * Level name → level; last writer wins with a warning naming both, registering the very same level again is silent.
 * A level declaring a flag `lmt replay` already has (`reservedFlags`) is refused with a warning.
 */
export class LevelRegistry {
  /** name → registration, in the order the names were first registered */
  readonly levels = new Map<string, {name: string; level: ReplayLevel; source: string}>()

  constructor(
    readonly warn: (message: string) => void,
    private readonly reservedFlags: ReadonlySet<string>,
  ) {}

  add(level: ReplayLevel, source: string): void {
    const clash = Object.keys(level.flags ?? {}).find((f) => this.reservedFlags.has(f))
    if (clash)
      return this.warn(
        `replay level "${level.name}" from ${source}: flag --${clash} collides with a base flag of lmt replay; level not registered`,
      )
    const previous = this.levels.get(level.name)
    if (previous?.level === level) return
    if (previous) this.warn(`replay level "${level.name}": ${source} overrides ${previous.source}`)
    this.levels.set(level.name, {name: level.name, level, source})
  }

  /** Registrations sorted by name. */
  list() {
    return [...this.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }

  names(): string[] {
    return this.list().map((r) => r.name)
  }
}
