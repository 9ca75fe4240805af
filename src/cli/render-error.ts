// lmt's one error style, `error: <message>` and `hint: <what to do>` lines on stderr, for every error a run can
// end with: lmt's coded errors, oclif's flag and argument parsing errors, and errors of oclif's own commands.
import {closest, isLmtError} from '../errors.js'

type FlagDefs = Record<string, {char?: string; allowNo?: boolean; type?: string}>
type AnyError = Error & {
  oclif?: {exit?: number}
  suggestions?: readonly string[]
  flags?: readonly string[]
  parse?: {input?: {flags?: FlagDefs}}
}

const SEE_HELP = /\n+See more help with --help$/
/** oclif's wrapping of an error thrown by a flag's parse function */
const PARSING = /^Parsing --\S+ *\n\s*/

/**
 * `obj[key]` when it is the object's own property: an exit code or a hint must not come from a property a plugin
 * added to Object.prototype.
 */
export function own(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' && Object.hasOwn(obj, key)
    ? (obj as Record<string, unknown>)[key]
    : undefined
}

/** oclif's exit code of an error (its own `oclif.exit`), if it has one. */
export function oclifExit(err: unknown): number | undefined {
  const exit = own(own(err, 'oclif'), 'exit')
  return typeof exit === 'number' ? exit : undefined
}

/** The command line a user types for a command id (`trace:info` → `lmt trace info`). */
export function commandLine(id: string | undefined, bin = 'lmt'): string {
  return id ? `${bin} ${id.replace(/:/g, ' ')}` : bin
}

/** Every spelling of the flags a command accepts: `--name`, `--no-name`, `-c`. */
function spellings(flags: FlagDefs): string[] {
  const out: string[] = []
  for (const [name, def] of Object.entries(flags)) {
    out.push(`--${name}`)
    if (def.allowNo) out.push(`--no-${name}`)
    if (def.char) out.push(`-${def.char}`)
  }
  return out
}

/** `unknown flag --formt; did you mean --format?` for oclif's NonExistentFlagsError, else undefined. */
function unknownFlagMessage(err: AnyError): string | undefined {
  if (err.constructor.name !== 'NonExistentFlagsError' || !err.flags) return undefined
  const known = spellings(err.parse?.input?.flags ?? {})
  return err.flags
    .map((f) => {
      const name = f.split('=')[0]
      const near = closest(name, known)
      return `unknown flag ${name}${near ? `; did you mean ${near}?` : ''}`
    })
    .join('\n')
}

/**
 * A flag's parse error without oclif's "Parsing --flag" line, but naming the flag: `--jobs: Expected an integer…`
 * (lmt's own number flags name it already).
 */
function flagNamed(message: string): string {
  const m = PARSING.exec(message)
  if (!m) return message
  const rest = message.slice(m[0].length)
  const flag = m[0].trim().split(/\s+/)[1]
  return rest.startsWith(flag) ? rest : `${flag}: ${rest}`
}

/** oclif's `The following error occurred: Missing required flag format` as `missing required flag -f/--format`. */
function missingFlagMessage(err: AnyError): string | undefined {
  const names = [...err.message.matchAll(/^\s*Missing required flag (\S+)$/gm)].map((m) => m[1])
  if (names.length === 0) return undefined
  const flags = err.parse?.input?.flags ?? {}
  return names
    .map((n) => `missing required flag ${flags[n]?.char ? `-${flags[n].char}/` : ''}--${n}`)
    .join('\n')
}

/** The message of an error as lmt prints it (also the `--json` error message). */
export function errorMessage(err: unknown): string {
  const e = (err instanceof Error ? err : new Error(String(err))) as AnyError
  return unknownFlagMessage(e) ?? missingFlagMessage(e) ?? flagNamed(e.message.replace(SEE_HELP, ''))
}

/** What to do next about an error: its suggestions, and for a parse error where to find the command's flags. */
export function errorHints(err: unknown, commandId?: string): string[] {
  const e = (err instanceof Error ? err : new Error(String(err))) as AnyError
  const parseError = !isLmtError(e) && (e.parse !== undefined || SEE_HELP.test(e.message))
  const suggestions = own(e, 'suggestions')
  const hints = Array.isArray(suggestions) ? suggestions.map(String) : []
  if (parseError || PARSING.test(e.message))
    hints.push(`run "${commandLine(commandId)} --help" for its flags and examples`)
  return hints
}

/** The lines of an error: `error: …` first, then one `hint: …` per suggestion. */
export function errorLines(err: unknown, commandId?: string): string[] {
  const e = (err instanceof Error ? err : new Error(String(err))) as AnyError
  const parseError = !isLmtError(e) && (e.parse !== undefined || SEE_HELP.test(e.message))
  const message = errorMessage(e)
  // oclif's multi-line parse messages (a list of missing arguments) are indented under their first line
  const lines = parseError
    ? message.split('\n').map((l, i) => (i === 0 ? `error: ${l}` : `  ${l.trimStart()}`))
    : [`error: ${message}`]
  for (const h of errorHints(e, commandId)) lines.push(`hint: ${h}`)
  if (!isLmtError(e) && oclifExit(e) === undefined && process.env.DEBUG) lines.push(String(e.stack))
  return lines
}
