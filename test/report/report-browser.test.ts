/// <reference lib="dom" />
// The report page in a real browser: headless Chromium opens the file from disk, every chart renders with the
// marks its data implies, nothing fails or is fetched, and the answer table holds the --json numbers. Saves a
// screenshot (LMT_REPORT_SCREENSHOT=<path> also copies it there, e.g. docs/report-screenshot.png).
import {copyFileSync, existsSync, mkdtempSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {tmpdir} from 'node:os'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type BrowserContext, chromium, type Page} from 'playwright-core'
import type {ReportDocument} from '../../src/report/report.js'
import {reportCharts} from '../../src/report/page/html.js'
import {convertSampleMooncake, lmt, tempDir} from '../helpers/cli.js'

const CHROMIUM = '/usr/bin/chromium'
const HAVE_CHROMIUM = existsSync(CHROMIUM)
const LAYOUT = '2x36x512x8x128:bfloat16'
const TITLE = HAVE_CHROMIUM
  ? 'the report page in headless Chromium'
  : `the report page in headless Chromium — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
if (!HAVE_CHROMIUM) console.warn(`report browser test skipped: ${CHROMIUM} is not installed`)

/** what each chart's named marks must count, from the document's data */
function expectedMarks(doc: ReportDocument): Record<string, Record<string, number>> {
  const a = doc.answer
  const c = doc.characterization
  const several = c.instances.length > 1
  const profiles = several ? c.instances.length + 1 : 1
  const bins = doc.trace.time_bins as number
  const hist = (f: (p: ReportDocument['characterization']['instances'][number]) => unknown[]) =>
    c.instances.reduce((s, p) => s + f(p).length, 0)
  const curves = a.curves.filter((x) => x.same_as === null).length + 1
  return {
    'chart-capacity': {points_marks: curves * a.grid.length},
    'chart-over-time': {
      points_marks: a.over_time.reduce(
        (s, x) => s + x.points.filter((p) => p.token_hit_rate !== null).length,
        0,
      ),
    },
    'chart-requests': {points_marks: profiles * bins},
    'chart-tokens': {points_marks: profiles * bins},
    'chart-input-length': {bars_marks: hist((p) => p.input_len.histogram)},
    'chart-sharing': {bars_marks: hist((p) => p.sharing.histogram)},
    'chart-reuse-distance': {bars_marks: hist((p) => p.reuse_distance.histogram)},
    'chart-reuse-time': {bars_marks: hist((p) => p.reuse_time.histogram)},
    'chart-working-set': {points_marks: profiles * bins * 2},
    'chart-popularity': {points_marks: hist((p) => p.popularity.points)},
  }
}

describe.skipIf(!HAVE_CHROMIUM)(TITLE, () => {
  const tmp = tempDir('lmt-report-browser-')
  const html = join(tmp.dir, 'report.html')
  let doc: ReportDocument
  let context: BrowserContext
  let page: Page
  const problems: string[] = []

  beforeAll(async () => {
    const trace = join(tmp.dir, 'mc.jsonl')
    await convertSampleMooncake(trace)
    const r = await lmt([
      'report',
      '--trace',
      trace,
      '--kv-layout',
      LAYOUT,
      '-o',
      html,
      '--json',
      '--no-progress',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    doc = JSON.parse(r.stdout) as ReportDocument
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'lmt-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: {width: 1366, height: 900},
    })
    page = await context.newPage()
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`)
    })
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('requestfailed', (q) => problems.push(`failed request: ${q.url()}`))
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
  }, 180_000)

  afterAll(async () => {
    await context?.close()
    tmp.cleanup()
  })

  it('renders every chart offline, with no console error and no request beyond the file', async () => {
    const state = await page.evaluate(() => {
      const s = (window as unknown as {lmtReport: {total: number; rendered: number; errors: string[]}})
        .lmtReport
      const divs = Array.from(document.querySelectorAll('.vega'))
      return {
        total: s.total,
        rendered: s.rendered,
        errors: s.errors,
        drawn: divs.filter((d) => d.getAttribute('data-rendered') === 'true' && d.querySelector('svg'))
          .length,
        divs: divs.length,
      }
    })
    expect(state.errors).toEqual([])
    expect(problems).toEqual([])
    expect(state).toMatchObject({total: 10, rendered: 10, drawn: 10, divs: 10})
  })

  it('each chart has the marks its data implies', async () => {
    const expected = expectedMarks(doc)
    const actual = await page.evaluate((ids) => {
      const s = (window as unknown as {lmtReport: {markCounts(id: string): Record<string, number>}}).lmtReport
      return Object.fromEntries(ids.map((id) => [id, s.markCounts(id)]))
    }, Object.keys(expected))
    for (const [id, marks] of Object.entries(expected)) expect(actual[id], id).toMatchObject(marks)
    expect(actual['chart-capacity'].points_marks).toBeGreaterThan(20)
  })

  it('the answer table shows the --json capacity table', async () => {
    const rows = await page.$$eval('#answer-table tbody tr', (trs) =>
      trs.map((tr) => ({
        policy: tr.getAttribute('data-policy'),
        blocks: Array.from(tr.querySelectorAll('td')).map((td) => td.getAttribute('data-blocks')),
        text: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent),
      })),
    )
    expect(rows.map((r) => ({policy: r.policy, blocks: r.blocks}))).toEqual(
      doc.answer.capacity_table.map((r) => ({
        policy: r.policy,
        blocks: r.needs.map((n) => String(n.blocks ?? '')),
      })),
    )
    const lru90 = doc.answer.capacity_table[0].needs[2]
    expect(rows[0].text[2]).toContain((lru90.blocks as number).toLocaleString('en-US'))
    expect(rows[0].text[2]).toContain(
      `${(lru90.gb as number).toLocaleString('en-US', {maximumFractionDigits: 1, minimumFractionDigits: 1})} GiB`,
    )
  })

  it('axes span the data: the capacity axis the grid, histogram tops below the frame, no "0k" label', async () => {
    const charts = Object.fromEntries(reportCharts(doc).map((c) => [c.id, c.spec]))
    const capacities = [...doc.answer.curves, doc.answer.belady].flatMap((c) =>
      c.points.map((p) => p.capacity_blocks),
    )
    const layer = charts['chart-capacity'].layer as Array<{encoding: {x: {scale?: unknown}}}>
    expect(layer[0].encoding.x.scale).toEqual({
      type: 'log',
      nice: false,
      domain: [Math.min(...capacities), Math.max(...capacities)],
    })
    const tallest = Math.max(
      ...doc.characterization.instances[0].reuse_distance.histogram.map((b) => b.count),
    )
    const y = (charts['chart-reuse-distance'].encoding as {y: {scale: {domainMax: number}}}).y
    expect(y.scale.domainMax).toBeGreaterThan(tallest)
    const labels = await page.$$eval('.vega svg text', (ts) => ts.map((t) => t.textContent ?? ''))
    expect(labels).toContain('1k')
    expect(labels.filter((t) => /^0[kMG]$/.test(t))).toEqual([])
  })

  it('fits an 800 px window: the tables scroll in their own boxes, the page does not', async () => {
    await page.setViewportSize({width: 800, height: 900})
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: document.documentElement.clientWidth,
      table: document.querySelector('#answer-table')!.getBoundingClientRect().right,
    }))
    await page.setViewportSize({width: 1366, height: 900})
    expect(widths.page).toBeLessThanOrEqual(widths.window)
    expect(widths.table).toBeLessThanOrEqual(widths.window)
  })

  it('prints (print media, A4) and saves a screenshot', async () => {
    const shot = join(tmp.dir, 'report-screenshot.png')
    await page.screenshot({path: shot, fullPage: true})
    expect(existsSync(shot)).toBe(true)
    const target = process.env.LMT_REPORT_SCREENSHOT
    if (target) copyFileSync(shot, resolve(target))
    await page.emulateMedia({media: 'print'})
    const pdf = await page.pdf({format: 'A4'})
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-')
    if (process.env.LMT_REPORT_PRINT_SHOT)
      await page.screenshot({path: resolve(process.env.LMT_REPORT_PRINT_SHOT), fullPage: true})
  })
})
