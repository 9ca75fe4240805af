// publisher_log's traces: the same converter run as a built-in and as a plugin writes the same bytes and the same summary, on random logs with overlapping sessions, several instances, unmatched and
// unfinished writes, gets never written (more than one flush batch of them), repeated sessions and bad lines.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {PublisherLogConverter} from '../../plugins/converters/publisher-log/publisher-log.js'
import type {ConverterClass} from '../../src/convert/types.js'
import {convertAs} from '../helpers/built-in-or-plugin.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-publisher-batches-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

let seed = 11
const rand = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]
const key = (): string =>
  pick(['1', '2', '-3', String(Math.floor(rand() * 1e6)), '-9223372036854775808', '2.0'])

/** A publisher log of about `count` lines: sessions that overlap, finish late, never finish or never start. */
function log(count: number, neverWritten: number): string {
  const lines: string[] = []
  const open: Array<{id: number; src: string}> = []
  let t = 1_000_000
  let session = 0
  const src = () => pick(['a', 'b', 'c'])
  for (let i = 0; i < neverWritten; i++) {
    const keys = Array.from({length: 1 + Math.floor(rand() * 5)}, key)
    lines.push(`{"type":"GetCacheLocation","source":"${src()}","trigger_time_us":${t++},"keys":[${keys}]}`)
  }
  while (lines.length < count) {
    t += Math.floor(rand() * 20) - 2
    const r = rand()
    if (open.length > 0 && (r < 0.3 || open.length > 40)) {
      const s = open.splice(Math.floor(rand() * open.length), 1)[0]
      if (rand() < 0.9)
        lines.push(
          `{"type":"FinishWriteCache","source":"${s.src}","trigger_time_us":${t},"write_session_id":"w${s.id}"}`,
        )
      continue
    }
    if (r > 0.97) {
      lines.push(pick(['{"type":"Heartbeat"}', '{"type":', '{"type":"GetCacheLocation","keys":5}', '']))
      continue
    }
    const s = src()
    const keys = Array.from({length: Math.floor(rand() * 8)}, key)
    const len = rand() < 0.5 ? `,"input_len":${Math.floor(rand() * 200)}` : ''
    lines.push(`{"type":"GetCacheLocation","source":"${s}","trigger_time_us":${t}${len},"keys":[${keys}]}`)
    const writeKeys = rand() < 0.8 ? [...keys, key()] : [key(), ...keys]
    const id = rand() < 0.05 ? Math.max(0, session - 1) : session // now and then a session started again
    lines.push(
      `{"type":"StartWriteCache","source":"${s}","trigger_time_us":${t + 1},"write_session_id":"w${id}","keys":[${writeKeys}]}`,
    )
    open.push({id, src: s})
    session++
  }
  return lines.join('\n') + '\n'
}

function convert(input: string, builtIn: boolean): Promise<{output: string; summary: unknown}> {
  return convertAs({
    dir,
    format: 'publisher_log',
    converterClass: PublisherLogConverter as unknown as ConverterClass,
    input,
    inputName: 'in.log',
    builtIn,
    instanceBlockSizes: new Map([['b', 4]]),
  })
}

describe('publisher_log traces handed over a batch at a time', () => {
  it.each([
    [3000, 0],
    [6000, 1500],
  ])(
    '%i lines, %i gets never written: the batches write what the traces one by one give',
    async (n, never) => {
      const input = log(n, never)
      const batches = await convert(input, true)
      const plain = await convert(input, false)
      expect(batches.output.split('\n').length).toBeGreaterThan(n / 3)
      expect(batches.output).toBe(plain.output)
      expect(batches.summary).toEqual(plain.summary)
    },
  )
})
