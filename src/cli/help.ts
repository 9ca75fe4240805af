// lmt's help: oclif's, with examples that can be copied from any terminal width and a did-you-mean for help on a
// command that does not exist (`lmt convrt --help`, `lmt help convrt`), as for the command itself; and the flags
// plugins add: `lmt convert --help` lists the flags of every converter it knows (built-in, installed, and those of a
// --converter-module / --converter-dir given on the same line), `lmt replay --help` those of every replay level, each
// under its own heading (the manifest cannot hold them: they depend on what is installed and on the command line).
import {Command, CommandHelp, type Config, Help} from '@oclif/core'
import {unknownCommandError} from './unknown-command.js'

/**
 * Splits a command line into its arguments at the spaces outside quotes: a quoted string (`'{"type": "mock"}'`) is
 * one argument, quotes kept.
 */
export function shellWords(line: string): string[] {
  const words: string[] = []
  let word = ''
  let quote: string | undefined
  for (const ch of line) {
    if (quote) {
      word += ch
      if (ch === quote) quote = undefined
    } else if (ch === "'" || ch === '"') {
      word += ch
      quote = ch
    } else if (ch === ' ') {
      if (word !== '') words.push(word)
      word = ''
    } else word += ch
  }
  if (word !== '') words.push(word)
  return words
}

/** Words put on lines in turn: a word joins the current line while it fits in `room(lines finished so far)`. */
function fillLines(words: readonly string[], room: (done: number) => number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of words) {
    if (current === '') current = word
    else if (current.length + 1 + word.length <= room(lines.length)) current += ` ${word}`
    else {
      lines.push(current)
      current = word
    }
  }
  if (current !== '') lines.push(current)
  return lines
}

/**
 * A command line broken into lines of at most `width` characters, only at the spaces between arguments: a path or a
 * quoted string longer than a line stays whole on a line of its own (a terminal folds it, and a copy keeps it whole).
 * A flag and its value stay together when they fit. Every line but the last ends with ` \`, so that the lines pasted
 * into a shell are one command; the lines after the first are indented by `indent` spaces.
 */
export function breakCommand(line: string, width: number, indent = 2): string[] {
  const words = shellWords(line)
  // a `--flag value` pair is one unit where it fits
  const units: string[] = []
  for (let i = 0; i < words.length; i++) {
    const w = words[i]
    const next = words[i + 1]
    if (w.startsWith('-') && next !== undefined && !next.startsWith('-')) {
      units.push(`${w} ${next}`)
      i++
    } else units.push(w)
  }
  // a pair longer than a continuation line is broken between its two arguments
  const continuation = width - indent - 2
  const parts = units.flatMap((u) => (u.length > continuation && u.includes(' ') ? shellWords(u) : [u]))
  // the room on a line: the width less its indentation and the ` \` that ends it
  const lines = fillLines(parts, (done) => width - (done === 0 ? 0 : indent) - 2)
  return lines.map((l, i) => (i === 0 ? '' : ' '.repeat(indent)) + l + (i < lines.length - 1 ? ' \\' : ''))
}

/** Words of prose wrapped at `width` (never inside a word). */
function wrapProse(text: string, width: number): string[] {
  return fillLines(text.split(/\s+/).filter(Boolean), () => width)
}

class LmtCommandHelp extends CommandHelp {
  /** the indentation oclif gives the section's body */
  private static readonly SECTION_INDENT = 2

  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    if (!examples || examples.length === 0) return undefined
    const width = this.opts.maxWidth - LmtCommandHelp.SECTION_INDENT
    const command = (text: string, indent: number): string | undefined => {
      const rendered = this.render(text).trim()
      const line = rendered.startsWith('$ ') ? rendered.slice(2) : rendered
      // a command line runs lmt: first, or after a pipe (`zstd -c x.lct | lmt trace info -`)
      const runsLmt =
        line === this.config.bin ||
        line.startsWith(`${this.config.bin} `) ||
        line.includes(`| ${this.config.bin} `)
      if (!runsLmt) return undefined
      const pad = ' '.repeat(indent)
      return breakCommand(`$ ${line}`, width - indent)
        .map((l) => pad + l)
        .join('\n')
    }
    const described = (description: string, commands: string[]): string => {
      const text = wrapProse(this.render(description), width).join('\n')
      return `${text}\n\n${commands.map((c) => command(c, 2) ?? `  ${this.render(c)}`).join('\n')}`
    }
    const blocks = (Array.isArray(examples) ? examples : [examples]).map((example) => {
      if (typeof example !== 'string') return described(example.description, [example.command])
      const lines = example.split('\n').filter(Boolean)
      if (
        lines.length >= 2 &&
        command(lines[0], 0) === undefined &&
        lines.slice(1).every((l) => command(l, 0))
      )
        return described(lines[0], lines.slice(1))
      return lines.map((l) => command(l, 0) ?? wrapProse(this.render(l), width).join('\n')).join('\n')
    })
    return blocks.join('\n\n')
  }
}

type CachedFlag = Command.Loadable['flags'][string]

/** The values of a repeatable `--name v` / `--name=v` in `argv`, up to a `--`. */
function flagValues(argv: readonly string[], name: string): string[] {
  const values: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') break
    if (token === `--${name}` && i + 1 < argv.length) values.push(argv[++i])
    else if (token.startsWith(`--${name}=`)) values.push(token.slice(name.length + 3))
  }
  return values
}

/**
 * A plugin's flag definitions added to `flags` under `group` (as the help renders a command's cached flags: data
 * only), but for names already there (the first one wins).
 */
function addFlags(flags: Record<string, CachedFlag>, defs: object | undefined, group: string): void {
  for (const [name, def] of Object.entries(defs ?? {})) {
    if (def === null || typeof def !== 'object' || Object.hasOwn(flags, name)) continue
    const d = def as Record<string, unknown>
    const flag: Record<string, unknown> = {
      ...d,
      name,
      helpGroup: typeof d.helpGroup === 'string' ? d.helpGroup : group,
    }
    delete flag.parse // a function: the cache holds data only
    flags[name] = flag as unknown as CachedFlag
  }
}

/** Commands of oclif's plugins that come without a line of their own in `lmt --help`. */
const SUMMARIES: Record<string, string> = {
  version: 'Print the version of lmt, Node.js and the platform (also lmt -v, lmt --version).',
}

export default class LmtHelp extends Help {
  protected override CommandHelpClass = LmtCommandHelp
  private argv: string[] = []

  /** the loaded configuration (Help types it as the interface; discovery takes the class it is) */
  private get loaded(): Config {
    return this.config as unknown as Config
  }

  protected override formatCommands(commands: Command.Loadable[]): string {
    return super.formatCommands(
      commands.map((c) =>
        c.summary || c.description || !SUMMARIES[c.id] ? c : {...c, summary: SUMMARIES[c.id]},
      ),
    )
  }

  /** Help on a command that does not exist is lmt's unknown-command error, with the nearest command. */
  override async showHelp(argv: string[]): Promise<void> {
    this.argv = argv
    const helpFlags = new Set(['--help', '-h', 'help'])
    const words: string[] = []
    for (const arg of argv) {
      if (arg === '--' || arg.startsWith('-')) {
        if (helpFlags.has(arg)) continue
        break
      }
      if (helpFlags.has(arg) && words.length === 0) continue
      words.push(arg)
    }
    const [first, second] = words
    if (first !== undefined) {
      const known = (id: string) =>
        this.config.findCommand(id) !== undefined || this.config.findTopic(id) !== undefined
      const topic = this.config.findTopic(first) !== undefined
      if (!known(first)) throw unknownCommandError(this.config, first)
      if (topic && second !== undefined && !known(`${first}:${second}`) && !this.config.findCommand(first))
        throw unknownCommandError(this.config, `${first}:${second}`)
    }
    return super.showHelp(argv)
  }

  override async showCommandHelp(command: Command.Loadable): Promise<void> {
    const warn = (m: string) => process.stderr.write(`warning: ${m}\n`)
    const flags = {...command.flags}
    try {
      if (command.id === 'convert') await this.addConverterFlags(flags, warn)
      else if (command.id === 'replay') await this.addLevelFlags(flags, warn)
    } catch (err) {
      // a --converter-module that does not load: the help still shows what is known
      warn((err as Error)?.message ?? String(err))
    }
    return super.showCommandHelp({...command, flags})
  }

  private async addConverterFlags(
    flags: Record<string, CachedFlag>,
    warn: (m: string) => void,
  ): Promise<void> {
    const {discoverConverters} = await import('../plugins/converter-discovery.js')
    const registry = await discoverConverters({
      config: this.loaded,
      dirs: flagValues(this.argv, 'converter-dir'),
      modules: flagValues(this.argv, 'converter-module'),
      onWarning: warn,
    })
    for (const reg of registry.list()) addFlags(flags, reg.cls.flags, `FORMAT ${reg.format.toUpperCase()}`)
  }

  private async addLevelFlags(flags: Record<string, CachedFlag>, warn: (m: string) => void): Promise<void> {
    const {discoverLevels} = await import('../plugins/replay-levels.js')
    const {reservedReplayFlagNames} = await import('./replay-flags.js')
    const registry = await discoverLevels(this.loaded, warn, reservedReplayFlagNames())
    for (const r of registry.list()) addFlags(flags, r.level.flags, `LEVEL ${r.name.toUpperCase()}`)
  }
}
