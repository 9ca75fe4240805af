import {describe, expect, it} from 'vitest'
import {renderInputLine, renderSummary} from '../../src/cli/convert-report.js'
import type {ConvertSummary, InputSummary} from '../../src/convert/summary.js'

const input = (path: string, skipped: Record<string, number>): InputSummary =>
  ({
    path,
    linesRead: 10,
    blankLines: 1,
    converted: 8,
    skipped,
    dropped: {},
    notes: {},
    traces: {total: 16, byType: {get: 8, write: 8}},
  }) as unknown as InputSummary

const summary: ConvertSummary = {
  format: 'qwen_bailian',
  converter: {className: 'QwenBailianConverter', source: 'built-in'},
  output: 'out.jsonl',
  ordering: 'merged',
  traces: {total: 16, byType: {get: 8, write: 8}},
  instances: [{instanceId: 'instance', blockSize: 16, traces: 16}],
  inputs: [input('a.jsonl', {invalid_json: 1})],
  warnings: 1,
  elapsedMs: 500,
} as unknown as ConvertSummary

describe("convert's console summary", () => {
  it('prints each input once: after its own line, the summary gives the totals with the reasons', () => {
    const lines = [renderInputLine(summary.inputs[0]), ...renderSummary(summary, 1500)]
    expect(lines.filter((l) => l.includes('a.jsonl'))).toHaveLength(1)
    expect(lines).toContain('  total: lines read 10, blank 1, converted 8')
    expect(lines.some((l) => l.includes('skipped: invalid_json 1'))).toBe(true)
    // the time of the whole command, not the conversion's own (500 ms)
    expect(lines.at(-1)).toBe('  wrote out.jsonl in 1.50 s')
  })
})
