/// <reference lib="dom" />
// The report pages of LMCache's recordings in a real browser: headless Chromium opens each file from disk, every
// chart renders with the marks its data implies (lmcache_lru's curve in the capacity chart; occupancy, pressure and
// deletions of the events replay), nothing fails or is fetched, and the page fits its window: at 1400 px every element
// lies inside it, at 800 px what is wider scrolls inside its own box.
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {tmpdir} from 'node:os'
import {gunzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type BrowserContext, chromium} from 'playwright-core'
import type {ReportDocument} from '../../src/report/report.js'
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
  /** elements whose box passes the window's right edge (clipped by a scrolling box or not) */
  outside: string[]
  /** elements whose visible part (clipped by every scrolling box around it) passes the window's right edge */
  visiblyOutside: string[]
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
  async function render(html: string, problems: string[], width = 800): Promise<Rendered> {
    const page = await context.newPage()
    await page.setViewportSize({width, height: 900})
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
        ...(() => {
          const right = document.documentElement.clientWidth
          const name = (e: Element) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}`
          /** the element's right edge as seen: cut at each box around it that does not let content overflow */
          const visibleRight = (e: Element) => {
            let r = e.getBoundingClientRect().right
            for (let a = e.parentElement; a; a = a.parentElement)
              if (getComputedStyle(a).overflowX !== 'visible')
                r = Math.min(r, a.getBoundingClientRect().right)
            return r
          }
          const all = Array.from(document.body.querySelectorAll('*'))
          return {
            outside: all.filter((e) => e.getBoundingClientRect().right > right + 0.5).map(name),
            visiblyOutside: all.filter((e) => visibleRight(e) > right + 0.5).map(name),
          }
        })(),
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
    expect(got.visiblyOutside).toEqual([])
    expect((await render(html, problems, 1400)).outside).toEqual([])
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
    expect(got.visiblyOutside).toEqual([])
    // a 1400 px window holds the whole compartments table: no element of the page passes its edge
    const wide = await render(html, problems, 1400)
    expect(wide).toMatchObject({errors: [], total: 3, rendered: 3, outside: []})
    expect(wide.scrollWidth).toBeLessThanOrEqual(1400)
  }, 120_000)

  it('an events trace without store, delete or access batches: the page fits and says it is drawn', async () => {
    const html = join(tmp.dir, 'no-batches.html')
    const r = await lmt(['report', '-i', join(FIXTURES, 'lct', 'events_level_meta_INFERRED.lct'), '-o', html])
    expect(r.exitCode, r.stderr).toBe(0)
    const problems: string[] = []
    for (const width of [1400, 800]) {
      const got = await render(html, problems, width)
      expect(got).toMatchObject({errors: [], total: 0, rendered: 0, outside: []})
    }
    expect(problems).toEqual([])
  }, 120_000)
})
