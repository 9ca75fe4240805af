// A converter's own flags and options (docs/architecture.md, "Plugin contracts"): the flag definitions it declares,
// checked against the command's; which format a flag given on the command line belongs to (its typed settings:
// converterSettings, src/convert/settings.ts).
import {lmtError} from '../errors.js'
import type {ConverterRegistration, ConverterRegistry} from './converter-registry.js'

/** The flag definitions a converter declares, less any that reuse a name of the command's (with a warning each). */
export function converterFlagsOf(
  reg: ConverterRegistration,
  commandFlags: ReadonlySet<string>,
  warn: (message: string) => void,
): Record<string, unknown> {
  const own: Record<string, unknown> = {}
  for (const [name, def] of Object.entries(reg.cls.flags ?? {})) {
    if (commandFlags.has(name))
      warn(`${reg.className} from ${reg.source}: flag --${name} is already a flag of lmt convert; ignored`)
    else own[name] = def
  }
  return own
}

/** The flag names given in `argv` (`--x`, `--x=v`; `--no-x` as `x` too), up to a `--`. */
function givenFlagNames(argv: readonly string[]): Set<string> {
  const names = new Set<string>()
  for (const token of argv) {
    if (token === '--') break
    if (!token.startsWith('--')) continue
    const name = token.slice(2).split('=')[0]
    names.add(name)
    if (name.startsWith('no-')) names.add(name.slice(3))
  }
  return names
}

/**
 * A usage error when `argv` gives a flag that `chosen` does not accept but another format declares: it names the
 * format the flag belongs to. Undefined when there is none (oclif then reports any other unknown flag).
 */
export function foreignConverterFlag(
  argv: readonly string[],
  registry: ConverterRegistry,
  chosen: ConverterRegistration,
  accepted: ReadonlySet<string>,
): Error | undefined {
  const given = givenFlagNames(argv)
  for (const reg of registry.list()) {
    if (reg === chosen) continue
    const flag = Object.keys(reg.cls.flags ?? {}).find((name) => given.has(name) && !accepted.has(name))
    if (flag !== undefined)
      return lmtError('CONVERT_FLAG_OF_OTHER_FORMAT', `--${flag}`, reg.format, chosen.format, {
        suggestions: [`leave --${flag} out, or convert with -f ${reg.format}`],
      })
  }
  return undefined
}
