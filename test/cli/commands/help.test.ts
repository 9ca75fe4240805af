// lmt's help: examples broken only between arguments at every width, and help on a mistyped command.
import {Config} from '@oclif/core'
import {beforeAll, describe, expect, it} from 'vitest'
import LmtHelp, {breakCommand, shellWords} from '../../../src/cli/help.js'
import {ROOT, lmt, lmtProcess} from '../../helpers/cli.js'

/** The lines of a help text's EXAMPLES section with every ` \` continuation joined: one entry per command. */
function exampleCommands(help: string): string[] {
  const section = help.split('\nEXAMPLES\n')[1]?.split(/\n[A-Z][A-Z ]+\n/)[0] ?? ''
  const joined = section.replace(/ \\\n\s*/g, ' ')
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('$ '))
    .map((l) => l.slice(2))
}

describe('breakCommand', () => {
  it('breaks only at spaces between arguments; a quoted string or a long path stays whole', () => {
    const json = `'{"type": "mock", "max_size_gb": 64, "mock_bandwidth_gb": 4}'`
    const path = '/a/very/long/install/prefix/of/nvm/versions/node/v20/lib/node_modules/lmt/samples/lct/x.lct'
    const line = `$ lmt replay ${path} --l1-size-gb 8 --l2-adapter ${json} --record out.lct`
    for (let width = 20; width <= 140; width += 7) {
      const lines = breakCommand(line, width)
      // pasted into a shell, the lines are the same arguments
      const pasted = lines.map((l) => l.replace(/ \\$/, '').trim()).join(' ')
      expect(shellWords(pasted)).toEqual(shellWords(line))
      expect(lines.some((l) => l.includes(path))).toBe(true)
      expect(lines.some((l) => l.includes(json))).toBe(true)
      for (const l of lines.slice(0, -1)) expect(l.endsWith(' \\')).toBe(true)
      // a line is longer than the width only when it holds a single argument that is
      for (const l of lines)
        if (l.length > width) expect(shellWords(l.replace(/ \\$/, '')).length, `${width}: ${l}`).toBe(1)
    }
    expect(breakCommand('$ lmt replay --list-levels', 80)).toEqual(['$ lmt replay --list-levels'])
    // a flag and a value that fit the first line's room but not a continuation line's are broken apart
    const value = 'v'.repeat(72)
    for (const l of breakCommand(`$ lmt converters --converter-module ${value} --json`, 94))
      if (l.length > 94) expect(shellWords(l.replace(/ \\$/, '')).length, l).toBe(1)
  })

  it('keeps a flag with its value where they fit', () => {
    expect(breakCommand('$ lmt simulate --trace t.jsonl --capacity-blocks 17090 -o sim', 36)).toEqual([
      '$ lmt simulate --trace t.jsonl \\',
      '  --capacity-blocks 17090 -o sim',
    ])
  })

  it('shellWords: quotes of either kind hold spaces', () => {
    expect(shellWords(`a 'b c' "d e" f`)).toEqual(['a', `'b c'`, '"d e"', 'f'])
  })
})

/** lmt's help, a command's text returned instead of printed */
class HelpText extends LmtHelp {
  text(cmd: Parameters<LmtHelp['showCommandHelp']>[0]): string {
    return this.formatCommand(cmd)
  }
}

describe('help examples of every command', () => {
  let config: Config
  beforeAll(async () => {
    config = await Config.load(ROOT)
  })

  it('at 40 to 120 columns, each example is the command as written, broken only between arguments', () => {
    const commands = config.commands.filter((c) => !c.hidden && c.pluginName === 'lmt')
    expect(commands.length).toBeGreaterThan(6)
    for (const cmd of commands) {
      const expected = (cmd.examples ?? [])
        .map((e) => (typeof e === 'string' ? e : e.command))
        .flatMap((e) => e.split('\n'))
        .filter((e) => e.includes('<%= config.bin %>'))
        .map((e) =>
          e
            .replaceAll('<%= config.bin %>', 'lmt')
            .replaceAll('<%= command.id %>', cmd.id.replaceAll(':', ' '))
            .replaceAll('<%= config.root %>', config.root),
        )
      for (const width of [40, 60, 80, 100, 120]) {
        const help = new HelpText(config, {maxWidth: width}).text(cmd)
        expect(
          exampleCommands(help).map((c) => shellWords(c)),
          `${cmd.id} at ${width}`,
        ).toEqual(expected.map((e) => shellWords(e)))
        for (const line of help.split('\n').filter((l) => l.trim().startsWith('$ ') || l.endsWith(' \\')))
          if (line.length > width)
            expect(shellWords(line.trim().replace(/ \\$/, '')).length, `${cmd.id} at ${width}: ${line}`).toBe(
              1,
            )
      }
    }
  })
})

describe('help on a command that does not exist', () => {
  it('lmt convrt --help and lmt help convrt: the did-you-mean of the command itself, exit 2', () => {
    for (const args of [
      ['convrt', '--help'],
      ['help', 'convrt'],
      ['convrt', '-h'],
    ]) {
      const r = lmtProcess(args)
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(r.stderr).toBe(
        'error: "lmt convrt" is not an lmt command; did you mean "lmt convert"?\nhint: run "lmt --help" for the list of commands\n',
      )
    }
    const topic = lmtProcess(['trace', 'infoo', '--help'])
    expect(topic.exitCode).toBe(2)
    expect(topic.stderr).toContain('did you mean "lmt trace info"?')
  })

  it('lmt --help gives every command a line of its own (version included)', async () => {
    const r = await lmt(['help'])
    expect(r.exitCode).toBe(0)
    const commands = r.stdout
      .split('\nCOMMANDS\n')[1]
      .split('\n')
      .filter((l) => /^ {2}\S/.test(l))
    expect(commands.length).toBeGreaterThan(8)
    for (const line of commands) expect(line.trim(), line).toMatch(/^\S+ +\S/)
    expect(r.stdout).toMatch(/^ {2}version +Print the version of lmt/m)
  })

  it('help on commands and topics that exist is unchanged', async () => {
    const r = await lmt(['help', 'trace'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatch(/^ {2}trace info {2}Summarise/m)
    const v = lmtProcess(['version', '--help'])
    expect(v.exitCode).toBe(0)
  })
})
