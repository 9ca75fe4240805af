/// <reference lib="dom" />
// The report pages of LMCache's recordings in a real browser: headless Chromium opens each file from disk, every
// chart renders with the marks its data implies (lmcache_lru's curve in the capacity chart; occupancy, pressure and
// deletions of the events replay), nothing fails or is fetched, and the page fits an 800 px window.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {tmpdir} from 'node:os'
import {gunzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type BrowserContext, chromium} from 'playwright-core'
import type {ReportDocument} from '../../src/report/document.js'
import type {EventsReportDocument} from '../../src/replay/events/events-report.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const CHROMIUM = '/usr/bin/chromium'
const HAVE_CHROMIUM = existsSync(CHROMIUM)
const TITLE = HAVE_CHROMIUM
  ? "LMCache recordings' report pages in headless Chromium"
  : `LMCache recordings' report pages in headless Chromium — SKIPPED: ${CHROMIUM} is not installed`

interface Rendered {
  errors: string[]
  total: number
  rendered: number
  marks: Record<string, Record<string, number>>
  scrollWidth: number
}

describe.skipIf(!HAVE_CHROMIUM)(TITLE, () => {
  const tmp = tempDir('lmt-report-lmcache-browser-')
  let context: BrowserContext

  beforeAll(async () => {
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'lmt-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
      viewport: {width: 800, height: 900},
    })
  }, 60_000)

  afterAll(async () => {
    await context?.close()
    tmp.cleanup()
  })

  /** Opens a page, waits for its charts, and reads what they drew. */
  async function render(html: string, problems: string[]): Promise<Rendered> {
    const page = await context.newPage()
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`)
    })
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('request', (q) => {
      if (!/^(file|data):/.test(q.url())) problems.push(`network request: ${q.url()}`)
    })
    await page.goto(`file://${html}`)
    await page.waitForFunction(
      () => {
        const s = (window as unknown as {lmtReport?: {errors: string[]}}).lmtReport
        return document.body.dataset.rendered === 'true' || (s !== undefined && s.errors.length > 0)
      },
      null,
      {timeout: 60_000},
    )
    const out = await page.evaluate(() => {
      const s = (
        window as unknown as {
          lmtReport: {
            total: number
            rendered: number
            errors: string[]
            views: Record<string, unknown>
            markCounts(id: string): Record<string, number>
          }
        }
      ).lmtReport
      return {
        errors: s.errors,
        total: s.total,
        rendered: s.rendered,
        marks: Object.fromEntries(Object.keys(s.views).map((id) => [id, s.markCounts(id)])),
        scrollWidth: document.documentElement.scrollWidth,
      }
    })
    await page.close()
    return out
  }

  it('a lookup-hash log: lmcache_lru is a curve of the capacity chart, every chart drawn', async () => {
    const logs = join(tmp.dir, 'logs')
    mkdirSync(logs)
    const from = join(FIXTURES, 'lmcache', 'lookup-hash', 'conv-c512-3models-torch', 'logs')
    for (const f of readdirSync(from))
      writeFileSync(join(logs, f.replace(/\.gz$/, '')), gunzipSync(readFileSync(join(from, f))))
    const html = join(tmp.dir, 'lookup.html')
    const r = await lmt(['report', '-i', logs, '-f', 'lmcache_lookup', '-o', html, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as ReportDocument
    const problems: string[] = []
    const got = await render(html, problems)
    expect(got.errors).toEqual([])
    expect(problems).toEqual([])
    expect(got.rendered).toBe(got.total)
    const curves = doc.answer.curves.filter((c) => c.same_as === null).length + 2 // Belady and lmcache_lru
    expect(got.marks['chart-capacity']).toMatchObject({points_marks: curves * doc.answer.grid.length})
    expect(got.scrollWidth).toBeLessThanOrEqual(800)
  }, 120_000)

  it('an events trace: occupancy, pressure and deletions drawn from the replay', async () => {
    const trace = join(tmp.dir, 'events.lct')
    writeFileSync(
      trace,
      gunzipSync(readFileSync(join(FIXTURES, 'lmcache', 'events', 'l1-l2-multibackend', 'trace.lct.gz'))),
    )
    const html = join(tmp.dir, 'events.html')
    const r = await lmt(['report', '-i', trace, '-o', html, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout) as EventsReportDocument
    const replay = doc.replay as {
      over_time: {compartments: string[]; points: unknown[]}
      compartments: Array<{capacity_bytes: number}>
    }
    const problems: string[] = []
    const got = await render(html, problems)
    expect(got.errors).toEqual([])
    expect(problems).toEqual([])
    expect(got).toMatchObject({total: 3, rendered: 3})
    const points = replay.over_time.points.length
    const declared = replay.compartments.filter((c) => c.capacity_bytes > 0).length
    expect(points).toBeGreaterThan(1)
    expect(got.marks['chart-occupancy']).toMatchObject({
      points_marks: points * replay.over_time.compartments.length,
    })
    expect(got.marks['chart-pressure']).toMatchObject({points_marks: points * declared})
    expect(got.marks['chart-deletes']).toMatchObject({points_marks: points})
    expect(got.scrollWidth).toBeLessThanOrEqual(800)
  }, 120_000)
})
