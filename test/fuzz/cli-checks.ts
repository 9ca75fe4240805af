// A handful of mutated inputs through the built CLI in child processes: the exit code is 0, 1 or 2, never a signal;
// --json documents parse and never carry an INTERNAL error code.
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {BIN, FIXTURES} from '../helpers/cli.js'
import {mutateJsonl, seedLines} from './jsonl-inputs.js'
import {lctSeeds, mutateLct} from './lct-inputs.js'
import type {Random} from './random.js'
import {Finding} from './targets.js'
import type {TargetFigures} from './campaign.js'

interface Check {
  command: string
  file: string
  input: Buffer
  args: string[]
  json: boolean
}

function checks(rng: Random, n: number, dir: string): Check[] {
  const lct = lctSeeds(rng)
  const qwen = seedLines(readFileSync(join(FIXTURES, 'convert', 'qwen_bailian_sample.jsonl')))
  const rows = seedLines(readFileSync(join(FIXTURES, 'simulate', 'A', 'trace.jsonl')))
  const out: Check[] = []
  for (let i = 0; i < n; i++) {
    const file = join(dir, `cli-${i}`)
    switch (i % 4) {
      case 0:
        out.push({
          command: 'trace info',
          file,
          input: mutateLct(rng, rng.pick(lct)),
          args: ['trace', 'info', file, '--json'],
          json: true,
        })
        break
      case 1:
        out.push({
          command: 'trace dump',
          file,
          input: mutateLct(rng, rng.pick(lct)),
          args: ['trace', 'dump', file],
          json: false,
        })
        break
      case 2:
        out.push({
          command: 'convert',
          file,
          input: mutateJsonl(rng, qwen),
          args: ['convert', '-q', '-i', file, '-f', 'qwen_bailian', '-o', `${file}.out.jsonl`, '--json'],
          json: true,
        })
        break
      default:
        out.push({
          command: 'simulate',
          file,
          input: mutateJsonl(rng, rows),
          args: [
            'simulate',
            '--trace',
            file,
            '--capacity-blocks',
            '10',
            '--block-size',
            '4',
            '-o',
            `${file}.out`,
          ].concat(['--skip-invalid', '--json']),
          json: true,
        })
    }
  }
  return out
}

function verdict(
  c: Check,
  status: number | null,
  signal: string | null,
  stdout: string,
  stderr: string,
): string {
  if (status === null) return `ended by ${signal}`
  if (![0, 1, 2].includes(status)) return `exit code ${status}`
  if (/Maximum call stack|RangeError|TypeError/.test(stderr)) return `stderr: ${stderr.slice(0, 300)}`
  if (!c.json) return ''
  let doc: {error?: {code?: string}}
  try {
    doc = JSON.parse(stdout)
  } catch {
    return `stdout is not one JSON document: ${stdout.slice(0, 200)}`
  }
  if (status !== 0 && !doc.error) return `exit ${status} without an error document`
  const code = doc.error?.code
  if (code === 'CLI_INTERNAL' || code === 'LMT_CLI_INTERNAL')
    return `error code ${code}: ${JSON.stringify(doc.error)}`
  return ''
}

/** Runs `n` mutated inputs through the CLI; outcomes are `exit <code>`. */
export async function cliChecks(
  rng: Random,
  n: number,
  dir: string,
): Promise<{figures: TargetFigures; findings: Finding[]}> {
  const figures: TargetFigures = {inputs: 0, outcomes: {}, lines: {}, findings: 0, ms: 0}
  const findings: Finding[] = []
  for (const c of checks(rng, n, dir)) {
    writeFileSync(c.file, c.input)
    const t0 = performance.now()
    const r = spawnSync(process.execPath, [BIN, ...c.args], {
      encoding: 'utf8',
      env: {...process.env, NO_COLOR: '1'},
      maxBuffer: 1 << 28,
      timeout: 60_000,
    })
    figures.ms += performance.now() - t0
    figures.inputs++
    const why = verdict(c, r.status, r.signal, r.stdout, r.stderr)
    const kind = why ? 'finding' : `${c.command} exit ${r.status}`
    figures.outcomes[kind] = (figures.outcomes[kind] ?? 0) + 1
    if (why) {
      figures.findings++
      findings.push(new Finding(`cli ${c.command}`, why, c.input))
    }
  }
  return {figures, findings}
}
