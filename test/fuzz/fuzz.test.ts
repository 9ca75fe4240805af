import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import type {ConvertSummary} from '../../src/convert/summary.js'
import {tempDir} from '../helpers/cli.js'
import {runCampaign} from './campaign.js'
import {loadLibrary} from './library.js'
import {checkAccounting, coded, Finding} from './targets.js'
import {itSlow} from '../helpers/slow.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('fuzzing every entry point (a short, deterministic run of `npm run fuzz`)', () => {
  itSlow(
    'mutated .lct and JSONL inputs give results or coded errors, lines add up, the heap stays bounded',
    async () => {
      const summary = await runCampaign({seed: 20261201, count: 10, timeMs: 60_000, cliRuns: 4})
      expect(summary.findings.map((f) => f.message)).toEqual([])
      const names = Object.keys(summary.byTarget)
      for (const name of ['lct-reader', 'trace-info', 'convert:qwen_bailian', 'convert:mooncake'])
        expect(names).toContain(name)
      expect(names).toContain('convert:publisher_log')
      expect(names).toContain('simulate')
      expect(summary.byTarget['timestamp-storms'].outcomes.result).toBeGreaterThan(0)
      expect(summary.byTarget['convert:qwen_bailian'].inputs).toBe(10)
      expect(summary.byTarget.cli.inputs).toBe(4)
      // both kinds of outcome occur: the inputs reach past the first check
      const kinds = new Set(Object.values(summary.byTarget).flatMap((f) => Object.keys(f.outcomes)))
      expect(kinds).toContain('result')
      expect([...kinds].some((k) => k.startsWith('LCT_'))).toBe(true)
      expect(summary.heapMb.end - summary.heapMb.start).toBeLessThan(128)
    },
    120_000,
  )

  it('an uncoded error, an abort and broken line accounting are findings', async () => {
    const lib = await loadLibrary()
    const input = Buffer.from('x')
    expect(coded(lib, 't', lib.errors.lmtError('LCT_EMPTY', 'f'), input)).toEqual({
      kind: 'LCT_EMPTY',
    })
    expect(() => coded(lib, 't', new RangeError('Maximum call stack size exceeded'), input)).toThrow(Finding)
    expect(() => coded(lib, 't', lib.errors.lmtError('PLUGIN_CONVERTER_FAILED', 'boom'), input)).toThrow(
      /aborted with PLUGIN_CONVERTER_FAILED/,
    )
    const out = join(tmp.dir, 'out.jsonl')
    writeFileSync(out, '{}\n{}\n')
    const summary = {
      traces: {total: 2, byType: {}},
      inputs: [{linesRead: 3, blankLines: 1, converted: 1, skipped: {invalid_json: 1}, dropped: {}}],
    } as unknown as ConvertSummary
    expect(() => checkAccounting(summary, out, 't', input)).not.toThrow()
    summary.inputs[0].linesRead = 4
    expect(() => checkAccounting(summary, out, 't', input)).toThrow(/lines read 4/)
    summary.inputs[0].linesRead = 3
    summary.traces.total = 3
    expect(() => checkAccounting(summary, out, 't', input)).toThrow(/2 output lines for 3 traces/)
  })
})
