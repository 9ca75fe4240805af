/**
 * `argv` without the flags `flags` does not define (`--x`, `--x=v`, and the value after `--x`): for a first, loose
 * parse of a command whose remaining flags are known only later (a converter's, once discovery has run). The strict
 * parse that follows sees the whole argv. A command with positional arguments cannot use this (a value after an
 * unknown flag is taken to be its value).
 */
export function withoutUnknownFlags(
  argv: readonly string[],
  flags: Readonly<Record<string, object>>,
): string[] {
  const known = new Set(['json', 'help'])
  for (const [name, def] of Object.entries(flags)) {
    known.add(name)
    if ((def as {allowNo?: boolean}).allowNo === true) known.add(`no-${name}`)
  }
  const kept: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') {
      kept.push(...argv.slice(i))
      break
    }
    if (token.startsWith('--') && !known.has(token.slice(2).split('=')[0])) {
      if (!token.includes('=') && i + 1 < argv.length && !argv[i + 1].startsWith('-')) i++
      continue
    }
    kept.push(token)
  }
  return kept
}
