// The output-fault families of the fuzz suite (output-faults.ts) through the built CLI: a case of each family here,
// the seeded campaign of every command under `npm run test:all` (and `npm run fuzz -- --outputs N`).
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {itSlow} from '../helpers/slow.js'
import {
  FAMILIES,
  type OutputCase,
  OutputFaults,
  outputFaultChecks,
  WRITERS,
  type Writer,
} from './output-faults.js'
import {Random} from './random.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const writer = (name: string): Writer => WRITERS.find((w) => w.name === name)!

describe('output faults', () => {
  const faults = new OutputFaults(join(tmp.dir, 'quick'))

  it('one case of each family: one whole set of one run, inputs and outside untouched, nothing left', async () => {
    const cases: OutputCase[] = [
      {family: 'concurrent', writer: writer('convert'), variants: [0, 1], old: 1},
      {family: 'link', writer: writer('replay'), variants: [0], plant: {name: 'log.jsonl', kind: 'hardlink'}},
      {
        family: 'same-file',
        writer: writer('simulate'),
        variants: [0],
        same: {name: 'summary.json', how: 'symlink'},
      },
      {
        family: 'storm',
        writer: writer('convert'),
        variants: [0],
        storm: {rows: 1000, copies: 4, seconds: [3, 1]},
      },
    ]
    const outcomes = await Promise.all(cases.map((c) => faults.run(c)))
    expect(outcomes.map((o) => o.replace(/ [\d.]+ s$/, ''))).toEqual([
      'ok',
      'ok',
      'LMT_OUTPUT_IS_INPUT',
      'ok',
    ])
  }, 60_000)

  it('a run that writes outside its output folder, or leaves its set short, is a finding', async () => {
    const convert = writer('convert')
    const outside: Writer = {
      ...convert,
      name: 'convert-outside',
      args: (v, io) => [...convert.args(v, io).slice(0, -1), join(io.out, '..', 'outside', 'victim')],
    }
    await expect(faults.run({family: 'link', writer: outside, variants: [0]})).rejects.toThrow(
      /outside the output folder/,
    )
    const short: Writer = {...convert, name: 'convert-short', set: ['out.jsonl', 'never-written.json']}
    await expect(faults.run({family: 'link', writer: short, variants: [0]})).rejects.toThrow(
      /succeeded but the set has only out\.jsonl/,
    )
  }, 60_000)

  itSlow(
    'the seeded campaign: every family on every command, no finding',
    async () => {
      const {figures, findings} = await outputFaultChecks(new Random(20261206), 40, tmp.dir, true)
      expect(findings.map((f) => f.message)).toEqual([])
      const kinds = Object.keys(figures.outcomes)
      for (const family of FAMILIES) expect(kinds.some((k) => k.startsWith(`${family} `))).toBe(true)
      for (const w of WRITERS) expect(kinds.some((k) => k.includes(` ${w.name}:`))).toBe(true)
    },
    1_200_000,
  )
})
