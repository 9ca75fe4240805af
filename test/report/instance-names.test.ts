// Instance ids are the user's words: names that are also properties of every JavaScript object (`constructor`,
// `toString`, `hasOwnProperty`, `valueOf`, `__proto__`) draw every chart of the report, with the names in the legend.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {reportCharts} from '../../src/report/page/html.js'
import type {ReportDocument} from '../../src/report/report.js'
import {renderSvg} from '../../src/simulate/output/svg.js'
import {lmt, tempDir} from '../helpers/cli.js'

const {dir, cleanup} = tempDir('lmt-report-names-')
afterAll(cleanup)

const NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']

/** each instance: three requests of block size 4 that share a prefix, a second apart */
function trace(): string {
  const rows: string[] = []
  for (let r = 0; r < 3; r++)
    NAMES.forEach((id, i) => {
      const t = (r + 1) * 1_000_000_000 + i * 10
      const keys = [100 * i + 1, 100 * i + 2 + r]
      rows.push(JSON.stringify({type: 'get', instance_id: id, timestamp_ns: t, keys, input_len: 8}))
      rows.push(JSON.stringify({type: 'write', instance_id: id, timestamp_ns: t + 1, keys}))
    })
  const path = join(dir, 'names.jsonl')
  writeFileSync(path, rows.join('\n') + '\n')
  return path
}

describe('lmt report: instance ids that are object property names', () => {
  it('every chart draws, and the legends name the instances as given', async () => {
    const r = await lmt([
      'report',
      '--trace',
      trace(),
      '--block-size',
      '4',
      '--points',
      '3',
      '-o',
      join(dir, 'names.html'),
      '--json',
      '--no-progress',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as ReportDocument
    const charts = reportCharts(doc)
    expect(charts.length).toBeGreaterThanOrEqual(10)
    let legends = 0
    for (const chart of charts) {
      const svg = await renderSvg(chart.spec)
      expect(svg, chart.title).toContain('<svg')
      // the charts coloured by instance: a legend entry per instance, under its own name
      if (!JSON.stringify(chart.spec).includes('"instance_key"')) continue
      legends++
      for (const name of NAMES) expect(svg, `${chart.title}: ${name}`).toContain(`>${name}</text>`)
      expect(svg, chart.title).not.toContain('>#')
    }
    // every chart but the capacity and hit-rate-over-time ones (coloured by policy) is coloured by instance
    expect(legends).toBeGreaterThanOrEqual(8)
  })
})
