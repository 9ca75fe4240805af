#!/usr/bin/env node
// Renames lmt's error kinds to the LMT_<AREA>_<CONDITION> scheme (docs/architecture.md, "Errors") in the files
// given, or in src/ plugins/ test/ docs/ scripts/ README.md schemas/ by default. Re-runnable: a file already renamed
// is left as it is (no new name contains an old one at a word boundary). `--dry-run` prints the lines it would change.
import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

/** old kind → new kind (the code is `LMT_` + kind) */
export const RENAMES = [
  ['USAGE', 'CLI_USAGE'],
  ['INTERNAL', 'CLI_INTERNAL'],
  ['INTERRUPTED', 'CLI_INTERRUPTED'],
  ['STDOUT_FAILED', 'CLI_STDOUT_FAILED'],
  ['UNKNOWN_FORMAT', 'CONVERT_UNKNOWN_FORMAT'],
  ['INPUT_NOT_FOUND', 'CONVERT_INPUT_NOT_FOUND'],
  ['BAD_CONFIG', 'CONVERT_BAD_CONFIG'],
  ['STRICT_INPUT', 'CONVERT_STRICT_INPUT'],
  ['NO_TRACES', 'CONVERT_NO_TRACES'],
  ['OUTPUT_FAILED', 'CONVERT_OUTPUT_FAILED'],
  ['CONVERTER_FAILED', 'PLUGIN_CONVERTER_FAILED'],
  ['CONTRACT_VIOLATION', 'PLUGIN_CONTRACT_VIOLATION'],
  ['SIM_OUTPUT', 'SIM_OUTPUT_FAILED'],
  ['REPLAY_OUTPUT', 'REPLAY_OUTPUT_FAILED'],
  ['REPORT_OUTPUT', 'REPORT_OUTPUT_FAILED'],
  // the per-command usage kinds were split into kinds of their own (CLI_FLAGS_EXCLUSIVE, CLI_BAD_VALUE,
  // SIM_UNKNOWN_POLICY, ...: src/errors.ts); what is left of them is the --json code of oclif's own parse errors.
  // A throw site still naming one becomes lmtError('CLI_USAGE', text), which the type check refuses: give it the
  // specific kind by hand.
  ['SIM_USAGE', 'CLI_USAGE'],
  ['REPORT_USAGE', 'CLI_USAGE'],
  ['REPLAY_USAGE', 'CLI_USAGE'],
]

// one-word kinds (USAGE is also oclif's help heading) are renamed only quoted or as an LMT_ code
const ONE_WORD = new Set(['USAGE', 'INTERNAL', 'INTERRUPTED'])

function patternOf(old) {
  if (ONE_WORD.has(old)) return new RegExp(`(?<=['"\`])${old}(?=['"\`])|\\bLMT_${old}\\b`, 'g')
  return new RegExp(`\\b(?:LMT_)?${old}\\b`, 'g')
}

const RULES = RENAMES.map(([old, now]) => [
  patternOf(old),
  (m) => (m.startsWith('LMT_') ? `LMT_${now}` : now),
])

// lines that mention an old name but not as an error code (oclif's help heading)
const KEEP_LINES = [/\.toContain\('USAGE'\)/]

function renameLine(line) {
  if (KEEP_LINES.some((re) => re.test(line))) return line
  let out = line
  for (const [re, to] of RULES) out = out.replace(re, to)
  return out
}

export function rename(text) {
  return text.split('\n').map(renameLine).join('\n')
}

const SKIP = new Set(['node_modules', 'dist', '.git', 'fixtures'])
const EXTENSIONS = /\.(ts|mts|mjs|js|md|json)$/

function* files(path) {
  const st = statSync(path, {throwIfNoEntry: false})
  if (st === undefined) return
  if (st.isFile()) {
    if (EXTENSIONS.test(path)) yield path
    return
  }
  for (const name of readdirSync(path).sort()) if (!SKIP.has(name)) yield* files(join(path, name))
}

function main(argv) {
  const dry = argv.includes('--dry-run')
  const roots = argv.filter((a) => a !== '--dry-run')
  const self = new URL(import.meta.url).pathname
  let changed = 0
  for (const root of roots.length > 0
    ? roots
    : ['src', 'plugins', 'test', 'docs', 'scripts', 'README.md', 'schemas']) {
    for (const file of files(root)) {
      if (self.endsWith(file)) continue
      const before = readFileSync(file, 'utf8')
      const after = rename(before)
      if (after === before) continue
      changed++
      if (!dry) writeFileSync(file, after)
      else {
        const a = before.split('\n')
        const b = after.split('\n')
        a.forEach(
          (line, i) => line !== b[i] && console.log(`${file}:${i + 1}: ${line.trim()}\n   → ${b[i].trim()}`),
        )
      }
    }
  }
  console.log(`${dry ? 'would change' : 'changed'} ${changed} file(s)`)
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) main(process.argv.slice(2))
