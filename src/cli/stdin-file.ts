import {createWriteStream, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import {lmtError} from '../errors.js'

/** The name that stands for standard input (an input) or standard output (an output). */
export const STDIO = '-'

/**
 * A private temporary folder, removed when lmt exits (whatever the way out: success, an error, Ctrl-C): for standard
 * input copied to a file and an output bound for standard output.
 */
export function privateTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmt-stdio-'))
  process.once('exit', () => rmSync(dir, {recursive: true, force: true}))
  return dir
}

/**
 * Standard input copied to a private temporary file (its bytes as they are: compressed data stays compressed, and is
 * recognised by the reader as any file is). Inputs are read by path, some more than once (a simulation's passes, a
 * replay on its reading thread), so a pipe becomes a file first.
 */
export async function stdinAsFile(): Promise<string> {
  const path = join(privateTempDir(), 'stdin')
  try {
    await pipeline(process.stdin, createWriteStream(path, {flags: 'wx'}))
  } catch (err) {
    throw lmtError('CLI_STDIN_FAILED', (err as Error).message)
  }
  return path
}

/**
 * `--trace -` and `-i -` of `simulate` and `report`: standard input copied to a file ({@link stdinAsFile}), its path
 * put in place of `-` (which `-i` may name once).
 */
export async function stdinTraceInputs(flags: {trace?: string; input?: string[]}): Promise<void> {
  if (flags.trace === STDIO) flags.trace = await stdinAsFile()
  if (!flags.input?.includes(STDIO)) return
  if (flags.input.filter((i) => i === STDIO).length > 1) throw lmtError('CLI_STDIN_TWICE', '-i')
  const path = await stdinAsFile()
  flags.input = flags.input.map((i) => (i === STDIO ? path : i))
}

/** Whether a command line gives `-` as a value: standard input is then the command's, and oclif must not read it. */
export function argvNamesStdio(argv: readonly string[]): boolean {
  return argv.some((a) => a === STDIO || /^-[^=]*=-$/.test(a))
}

/**
 * A command's parse options whose arguments oclif does not read from a piped standard input when they are missing
 * (it would take the data meant for a `-` flag as the argument), when the command line names `-`; else as they are.
 */
export function parseOptionsForStdio<T extends {args?: Record<string, object>}>(
  command: T,
  argv: readonly string[],
): T {
  if (!argvNamesStdio(argv) || command.args === undefined) return command
  const args = Object.fromEntries(
    Object.entries(command.args).map(([k, v]) => [k, {...v, ignoreStdin: true}]),
  )
  return {...command, args} as T
}
