import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {prefixHash} from '../../../src/hash/prefix-hash.js'
import {lmt, tempDir} from '../../helpers/cli.js'

/** A qwen_bailian row: whole seconds, two 16-token blocks of ids. */
interface Row {
  seconds: number
  ids: [number, number]
}

const rowText = (r: Row) =>
  `{"timestamp": ${r.seconds}, "input_length": 40, "hash_ids": [${r.ids[0]}, ${r.ids[1]}]}\n`

/**
 * The plain reference of docs/convert.md §4.3, §8.2 and §9.1: one set of used timestamps for the whole run, searched
 * one by one; a get at T and a write at T + 1 per row, get first; every input sorted stably, then merged by
 * (timestamp, input, emission).
 */
function reference(inputs: Row[][]): string {
  const used = new Set<bigint>()
  const allocate = (base: bigint) => {
    let t = base
    while (used.has(t)) t++
    used.add(t)
    return t
  }
  const lines: Array<{ts: bigint; input: number; n: number; text: string}> = []
  inputs.forEach((rows, input) => {
    for (const r of rows) {
      const base = BigInt(r.seconds) * 1_000_000_000n
      const keys = prefixHash(r.ids).join(', ')
      const g = allocate(base)
      const w = allocate(base + 1n)
      lines.push({
        ts: g,
        input,
        n: lines.length,
        text: `{"type": "get", "instance_id": "instance", "trace_id": "trace_instance_${g}", "timestamp_ns": ${g}, "keys": [${keys}], "input_len": 40, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n`,
      })
      lines.push({
        ts: w,
        input,
        n: lines.length,
        text: `{"type": "write", "instance_id": "instance", "trace_id": "trace_instance_${w}", "timestamp_ns": ${w}, "keys": [${keys}]}\n`,
      })
    }
  })
  lines.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.input - b.input || a.n - b.n))
  return lines.map((l) => l.text).join('')
}

async function convert(inputs: Row[][]): Promise<string> {
  const tmp = tempDir()
  try {
    const paths = inputs.map((rows, i) => {
      const p = join(tmp.dir, `in${i}.jsonl`)
      writeFileSync(p, rows.map(rowText).join(''))
      return p
    })
    const out = join(tmp.dir, 'out.jsonl')
    const r = await lmt(['convert', '-q', '--no-progress', '-f', 'qwen_bailian', '-o', out, '-i', ...paths])
    expect(r.exitCode, r.stderr).toBe(0)
    return readFileSync(out, 'utf8')
  } finally {
    tmp.cleanup()
  }
}

describe('convert: equal-timestamp storms and inputs that go back in time', () => {
  it('gives 40,000 rows at one timestamp base, base + 1, … in row order (each row a get and its write)', async () => {
    const rows: Row[] = Array.from({length: 40_000}, (_, i) => ({seconds: 7, ids: [i, i + 1]}))
    const text = await convert([rows])
    const lines = text.split('\n')
    expect(lines.length).toBe(80_001)
    // the arithmetic form of the rule for a storm: the k-th allocation at one base gets base + k
    for (const k of [0, 1, 2, 3, 39_999 * 2, 39_999 * 2 + 1]) {
      const ts = 7_000_000_000n + BigInt(k)
      expect(lines[k]).toContain(`"trace_id": "trace_instance_${ts}", "timestamp_ns": ${ts}, `)
    }
    // the whole output by that arithmetic (the plain reference's search is quadratic on a storm this size)
    const expected = rows
      .map((r, i) => {
        const g = 7_000_000_000n + BigInt(2 * i)
        const keys = prefixHash(r.ids).join(', ')
        return (
          `{"type": "get", "instance_id": "instance", "trace_id": "trace_instance_${g}", "timestamp_ns": ${g}, "keys": [${keys}], "input_len": 40, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}\n` +
          `{"type": "write", "instance_id": "instance", "trace_id": "trace_instance_${g + 1n}", "timestamp_ns": ${g + 1n}, "keys": [${keys}]}\n`
        )
      })
      .join('')
    expect(text).toBe(expected)
    // and the plain reference agrees with that arithmetic on a smaller storm
    expect(reference([rows.slice(0, 2_000)])).toBe(expected.split('\n').slice(0, 4_000).join('\n') + '\n')
  })

  it('matches the plain reference on storms at several timestamps across copies given as several inputs', async () => {
    let seed = 17
    const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const day: Row[] = Array.from({length: 1500}, (_, i) => ({
      seconds: 100 + Math.floor(i / 300) + (rand() < 0.1 ? 1 : 0),
      ids: [i, Math.floor(rand() * 1000)],
    }))
    const earlier: Row[] = day.map((r) => ({seconds: r.seconds - 3, ids: r.ids}))
    const text = await convert([day, earlier, day, [...day].reverse()])
    expect(text).toBe(reference([day, earlier, day, [...day].reverse()]))
  })
})
