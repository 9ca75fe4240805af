// `npm run fuzz`: a seeded fuzz campaign over the built library and CLI (README: Fuzzing).
//   npm run fuzz -- --seed 7 --count 5000 --time 600 --targets convert,simulate --cli 8 --outputs 40 --findings fuzz-findings
//   npm run fuzz -- --replay fuzz-findings/convert_qwen_bailian-1.bin --targets convert:qwen_bailian
// or the same through FUZZ_SEED, FUZZ_COUNT, FUZZ_TIME (seconds), FUZZ_TARGETS, FUZZ_CLI, FUZZ_OUTPUTS,
// FUZZ_FINDINGS. --outputs is the number of output-fault cases (output-faults.ts; storms of up to 32,000 rows).
// Exit 1 when an input broke a property or the heap grew by more than FUZZ_HEAP_MB (default 256).
import {readFileSync} from 'node:fs'
import {parseArgs} from 'node:util'
import {renderSummary, replayInput, runCampaign} from './campaign.js'

const {values} = parseArgs({
  options: {
    seed: {type: 'string'},
    count: {type: 'string'},
    time: {type: 'string'},
    targets: {type: 'string'},
    cli: {type: 'string'},
    outputs: {type: 'string'},
    findings: {type: 'string'},
    'heap-mb': {type: 'string'},
    replay: {type: 'string'},
  },
})

function numberOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`fuzz: --${name} must be a non-negative number (got ${value})\n`)
    process.exit(2)
  }
  return n
}

const env = process.env
const seed = numberOption('seed', values.seed ?? env.FUZZ_SEED, 20261201)
const count = numberOption('count', values.count ?? env.FUZZ_COUNT, 1000)
const seconds = numberOption('time', values.time ?? env.FUZZ_TIME, 300)
const heapBound = numberOption('heap-mb', values['heap-mb'] ?? env.FUZZ_HEAP_MB, 256)
const targets = (values.targets ?? env.FUZZ_TARGETS ?? '').split(',').filter(Boolean)

if (values.replay !== undefined) {
  const lines = await replayInput(readFileSync(values.replay), targets)
  process.stdout.write(lines.join('\n') + '\n')
  process.exit(lines.some((l) => l.includes(': finding: ')) ? 1 : 0)
}

const summary = await runCampaign({
  seed,
  count,
  timeMs: seconds * 1000,
  targets,
  cliRuns: numberOption('cli', values.cli ?? env.FUZZ_CLI, 8),
  outputRuns: numberOption('outputs', values.outputs ?? env.FUZZ_OUTPUTS, 16),
  long: true,
  findingsDir: values.findings ?? env.FUZZ_FINDINGS ?? 'fuzz-findings',
  onProgress: (line) => process.stderr.write(`fuzz: ${line}\n`),
})
process.stdout.write(renderSummary(summary).join('\n') + '\n')
const grew = summary.heapMb.end - summary.heapMb.start
if (grew > heapBound) process.stdout.write(`  heap grew by ${grew.toFixed(1)} MB (bound ${heapBound} MB)\n`)
if (summary.findings.length > 0) {
  process.stdout.write(
    `  failing inputs saved in ${values.findings ?? env.FUZZ_FINDINGS ?? 'fuzz-findings'}/\n`,
  )
  for (const f of summary.findings) process.stderr.write(`\n${f.message}\n`)
}
process.exitCode = summary.findings.length > 0 || grew > heapBound ? 1 : 0
