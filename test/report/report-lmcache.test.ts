// `lmt report` on LMCache's own recordings: the page of a lookup-hash log carries LMCache's cache simulator beside
// lmt's policies, and each of its figures is what `lmt simulate --policy lmcache_lru --json` answers at the same
// capacity (LMCache's seven statistics at the chosen capacity, the hit rate at every capacity of the grid).
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gunzipSync} from 'node:zlib'
import {afterAll, describe, expect, it} from 'vitest'
import type {ReportDocument} from '../../src/report/report.js'
import {validatorFor} from '../../src/schemas.js'
import {FIXTURES, lmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir('lmt-report-lmcache-')
afterAll(() => tmp.cleanup())

/** A lookup-hash case's log directory, gunzipped under its own file names. */
function logsOf(name: string): string {
  const from = join(FIXTURES, 'lmcache', 'lookup-hash', name, 'logs')
  const dir = join(tmp.dir, name, 'logs')
  mkdirSync(dir, {recursive: true})
  for (const f of readdirSync(from))
    writeFileSync(join(dir, f.replace(/\.gz$/, '')), gunzipSync(readFileSync(join(from, f))))
  return dir
}

/** `data-key` → `data-value` of the cells of the page's element `id` (a table or the statistics' grid). */
function cellValues(html: string, id: string): Map<string, number> {
  const start = html.indexOf(`id="${id}"`)
  expect(start, `element ${id} on the page`).toBeGreaterThan(0)
  const end = html.indexOf('</div>', start)
  const out = new Map<string, number>()
  for (const m of html.slice(start, end).matchAll(/data-key="([^"]+)" data-value="([^"]+)"/g))
    out.set(m[1], Number(m[2]))
  return out
}

/** The lmcache_lru hit rate per capacity (blocks) in the page's comparison table. */
function lmcacheRates(html: string): Map<number, number> {
  const start = html.indexOf('id="lmcache-capacity-table"')
  const table = html.slice(start, html.indexOf('</table>', start))
  const out = new Map<number, number>()
  for (const m of table.matchAll(
    /<tr data-blocks="(\d+)">.*?data-policy="lmcache_lru" data-value="([^"]+)"/g,
  ))
    out.set(Number(m[1]), Number(m[2]))
  return out
}

/** The page's figure keys → the path of the same number in simulate's --json. */
function simulateValue(json: Record<string, unknown>, key: string): unknown {
  const [head, tail] = key.split('.')
  if (tail === undefined) return head === 'stat5_evictions' ? json.evictions : json[head]
  const block = {
    stat1: 'stat1_per_request_token_hit_rate',
    stat2: 'stat2_hit_prefix_chunks',
    stat3: 'stat3_chunk_reuse',
    stat4: 'stat4_rolling_hit_rate',
    stat6: 'stat6_global_span',
    stat7: 'stat7_cache_position',
  }[head] as string
  return (json[block] as Record<string, unknown>)[tail]
}

describe('lmt report -i LOG_DIR -f lmcache_lookup', () => {
  for (const {name, flags} of [
    {name: 'conv-c256-llama8b', flags: [] as string[]},
    {name: 'conv-c512-3models-torch', flags: ['--bytes-per-token', '2048']},
  ])
    it(`${name}: LMCache's figures on the page equal lmt simulate --policy lmcache_lru --json's`, async () => {
      const logs = logsOf(name)
      const page = join(tmp.dir, `${name}.html`)
      const r = await lmt(['report', '-i', logs, '-f', 'lmcache_lookup', ...flags, '-o', page, '--json'])
      expect(r.exitCode, r.stderr).toBe(0)
      const doc = JSON.parse(r.stdout) as ReportDocument
      const validate = validatorFor('report.schema.json')
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
      const html = readFileSync(page, 'utf8')
      const section = doc.lmcache?.lookup
      expect(section).toBeDefined()
      const kv = section?.kv_bytes_per_chunk as number
      expect(kv).toBeGreaterThan(0)
      expect(kv / 2 ** 30).toBe(Number(String(kv / 2 ** 30))) // GiB capacities below are exact

      // the seven statistics at the chosen capacity
      const chunks = doc.answer.chosen_capacity.blocks
      const single = await lmt([
        'simulate',
        '-i',
        logs,
        '-f',
        'lmcache_lookup',
        '--policy',
        'lmcache_lru',
        '--capacity',
        String((chunks * kv) / 2 ** 30),
        ...flags,
        '--json',
      ])
      expect(single.exitCode, single.stderr).toBe(0)
      const sim = JSON.parse(single.stdout) as Record<string, unknown>
      expect(sim.capacity_chunks).toBe(chunks)
      const figures = cellValues(html, 'lmcache-stats')
      expect(figures.size).toBeGreaterThanOrEqual(30)
      for (const [key, value] of figures) expect(value, key).toBe(simulateValue(sim, key))
      for (const stat of ['stat1', 'stat2', 'stat3', 'stat4', 'stat5_evictions', 'stat6', 'stat7'])
        expect(
          [...figures.keys()].some((k) => k.startsWith(stat)),
          stat,
        ).toBe(true)

      // the hit rate at every capacity of the grid, one sweep
      const rates = lmcacheRates(html)
      expect([...rates.keys()]).toEqual(doc.answer.grid)
      const sweep = await lmt([
        'simulate',
        '-i',
        logs,
        '-f',
        'lmcache_lookup',
        '--policy',
        'lmcache_lru',
        '--sweep',
        '--sweep-unit',
        'gib',
        '--sweep-capacities',
        doc.answer.grid.map((b) => String((b * kv) / 2 ** 30)).join(','),
        ...flags,
        '--json',
      ])
      expect(sweep.exitCode, sweep.stderr).toBe(0)
      const points = (
        JSON.parse(sweep.stdout) as {points: Array<{capacity_chunks: number; token_hit_rate: number}>}
      ).points
      expect(points.map((p) => p.capacity_chunks)).toEqual(doc.answer.grid)
      for (const p of points)
        expect(rates.get(p.capacity_chunks), String(p.capacity_chunks)).toBe(p.token_hit_rate)

      // lmt's own policies in the same table are the page's curves
      for (const c of doc.answer.curves)
        for (const p of c.points) {
          const cell = new RegExp(
            `<tr data-blocks="${p.capacity_blocks}">.*?data-policy="${c.policy}" data-value="([^"]+)"`,
          ).exec(html)
          expect(Number(cell?.[1]), `${c.policy} at ${p.capacity_blocks}`).toBe(p.token_hit_rate)
        }
    })
})

/** `data-key` → `data-value` (as text) of every figure cell of the page. */
function figures(html: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const m of html.matchAll(/data-key="([^"]+)" data-value="([^"]*)"/g)) out.set(m[1], unescapeHtml(m[2]))
  return out
}

function unescapeHtml(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
}

describe('lmt report -i EVENTS.lct', () => {
  it('a trace without store, delete or access batches: a sentence instead of empty charts', async () => {
    const page = join(tmp.dir, 'no-batches.events.html')
    const r = await lmt(['report', '-i', join(FIXTURES, 'lct', 'events_level_meta_INFERRED.lct'), '-o', page])
    expect(r.exitCode, r.stderr).toBe(0)
    const html = readFileSync(page, 'utf8')
    expect(html).toContain('id="no-compartments"')
    expect(html).not.toContain('id="chart-occupancy"')
    expect(html).toContain("The stream's health")
  })

  const cases = readdirSync(join(FIXTURES, 'lmcache', 'events')).sort()
  for (const name of cases)
    it(`${name}: trace info's figures and the events replay's on the page`, async () => {
      const trace = join(tmp.dir, `${name}.lct`)
      writeFileSync(
        trace,
        gunzipSync(readFileSync(join(FIXTURES, 'lmcache', 'events', name, 'trace.lct.gz'))),
      )
      const page = join(tmp.dir, `${name}.events.html`)
      const r = await lmt(['report', '-i', trace, '-o', page, '--json'])
      expect(r.exitCode, r.stderr).toBe(0)
      const f = figures(readFileSync(page, 'utf8'))

      const info = await lmt(['trace', 'info', trace, '--json'])
      expect(info.exitCode, info.stderr).toBe(0)
      const ti = JSON.parse(info.stdout) as {
        level: string
        duration_s: number
        total_records: number
        ops: Record<string, number>
        events: {
          instances: Array<{instance_id: string; incarnations: number[]; restarts: number}>
          batches: Array<{event_type: string; tier: string; backend: string; shared: boolean; count: number}>
          entries: Record<string, number>
          store_bytes: number
          entries_with_tokens: number
          lifecycle: Record<string, number>
        }
      }
      expect(f.get('level')).toBe(ti.level)
      expect(Number(f.get('duration_s'))).toBe(ti.duration_s)
      expect(Number(f.get('total_records'))).toBe(ti.total_records)
      for (const [q, n] of Object.entries(ti.ops)) expect(Number(f.get(`ops.${q}`)), q).toBe(n)
      const e = ti.events
      expect(Number(f.get('events.instances'))).toBe(e.instances.length)
      for (const i of e.instances)
        expect(f.get(`events.instance.${i.instance_id}`)).toBe(
          `incarnations=[${i.incarnations.join(', ')}] restarts=${i.restarts}`,
        )
      for (const b of e.batches) {
        const id = `${b.event_type}/${b.tier}/${b.backend || '-'}/${b.shared ? 'shared' : 'local'}`
        expect(Number(f.get(`events.batches.${id}`)), id).toBe(b.count)
      }
      for (const [k, n] of Object.entries(e.entries)) expect(Number(f.get(`events.entries.${k}`)), k).toBe(n)
      expect(Number(f.get('events.store_bytes'))).toBe(e.store_bytes)
      expect(Number(f.get('events.entries_with_tokens'))).toBe(e.entries_with_tokens)
      for (const [k, n] of Object.entries(e.lifecycle))
        expect(Number(f.get(`events.lifecycle.${k}`)), k).toBe(n)

      const replay = await lmt(['replay', trace, '--json'])
      expect(replay.exitCode, replay.stderr).toBe(0)
      const model = (
        replay.result as {
          model: {stream: Record<string, unknown>; compartments: Array<Record<string, unknown>>}
        }
      ).model
      expect(model.compartments.length).toBeGreaterThan(0)
      for (const c of model.compartments)
        for (const k of [
          'capacity_bytes',
          'used_bytes_peak',
          'used_bytes_final',
          'stores',
          'deletes',
          'accesses',
        ])
          expect(Number(f.get(`${String(c.compartment)}.${k}`)), `${String(c.compartment)} ${k}`).toBe(
            Number(c[k]),
          )
      for (const k of ['batches', 'cut_streams', 'lost_batches', 'dropped_events', 'restarts'])
        expect(Number(f.get(`stream.${k}`)), k).toBe(model.stream[k])
      const doc = JSON.parse(r.stdout) as {
        lmcache_trace_info: unknown
        replay: {over_time: {points: unknown[]}}
      }
      expect(doc.lmcache_trace_info).toEqual(e)
      expect(doc.replay.over_time.points.length).toBeGreaterThan(1)
    })
})
