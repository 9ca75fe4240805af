// The traces of hash-id rows as the Qwen-Bailian and Mooncake converters hand them over: a get then a write per
// row, each line counted after its write and before the next row's get, a bad line skipped in its place; a
// consumer that stops early, or an error while making a trace, shuts the row decoding down (the lines' source is
// closed) and the error is the consumer's.
import {describe, expect, it} from 'vitest'
import {QwenBailianConverter} from '../../plugins/converters/hash-id/qwen-bailian.js'
import type {InputContext, InputLine, Keys, Trace} from '../../src/index.js'

const row = (ts: number, ids: number[]): string =>
  JSON.stringify({timestamp: ts, input_length: 16 * ids.length, hash_ids: ids})
/** more rows than one decoded batch holds: the lines' source is still open after the first batch */
const many = Array.from({length: 2000}, (_, i) => row(i + 1, [i]))

/** A context without a fast lane over `texts` (the rows are decoded on this thread); what happens, in order. */
function context(texts: string[]): {ctx: InputContext; events: string[]; closed: () => boolean} {
  const events: string[] = []
  let closed = false
  async function* lines(): AsyncGenerator<InputLine> {
    try {
      for (const [i, text] of texts.entries()) yield {lineNo: i + 1, text}
    } finally {
      closed = true
    }
  }
  const ctx = {
    lines,
    skip: (line: InputLine, code: string) => events.push(`skip ${line.lineNo} ${code}`),
    converted: (line: InputLine) => events.push(`converted ${line.lineNo}`),
  } as unknown as InputContext
  return {ctx, events, closed: () => closed}
}

/** A Qwen-Bailian converter that logs each trace into `events` when made (and fails to make the get at `failAt` s). */
function converter(events: string[], failAt?: number): QwenBailianConverter {
  return new (class extends QwenBailianConverter {
    override createGetTrace(
      ts: bigint | number,
      keys: Keys,
      id: string | undefined,
      extra: {inputLen: unknown},
    ) {
      if (ts === BigInt(failAt ?? -1) * 1_000_000_000n) throw new Error('no get here')
      events.push(`get ${ts}`)
      return super.createGetTrace(ts, keys, id, extra)
    }
    override createWriteTrace(ts: bigint | number, keys: Keys, id?: string) {
      events.push(`write ${ts}`)
      return super.createWriteTrace(ts, keys, id)
    }
  })()
}

const traces = (ctx: InputContext, events: string[], failAt?: number) =>
  converter(events, failAt).convertToTraces('', ctx) as AsyncIterable<Trace>

describe('hash-id traces', () => {
  it('a get and a write per row; a line counted after its write, a bad line skipped in its place', async () => {
    const {ctx, events, closed} = context([row(1, [1, 2]), '{"timestamp": 2}', row(3, [3])])
    const taken: string[] = []
    for await (const t of traces(ctx, events)) {
      const trace = t as unknown as {type: string; timestamp_ns: bigint}
      taken.push(`${trace.type}@${trace.timestamp_ns}`)
      events.push(`took ${trace.type}`)
    }
    expect(taken).toEqual(['get@1000000000', 'write@1000000001', 'get@3000000000', 'write@3000000001'])
    expect(events).toEqual([
      'get 1000000000',
      'took get',
      'write 1000000001',
      'took write',
      'converted 1',
      expect.stringMatching(/^skip 2 /),
      'get 3000000000',
      'took get',
      'write 3000000001',
      'took write',
      'converted 3',
    ])
    expect(closed()).toBe(true)
  })

  it('a consumer that stops early closes the rows’ source', async () => {
    const {ctx, events, closed} = context(many)
    for await (const t of traces(ctx, events)) {
      if ((t as unknown as {type: string}).type === 'write') break
    }
    expect(events).toEqual(['get 1000000000', 'write 1000000001'])
    expect(closed()).toBe(true)
  })

  it('an error while making a trace reaches the consumer, the source closed', async () => {
    const {ctx, events, closed} = context(many)
    const taken: unknown[] = []
    const run = async (): Promise<void> => {
      for await (const t of traces(ctx, events, 2)) taken.push(t)
    }
    await expect(run()).rejects.toThrow('no get here')
    expect(taken).toHaveLength(2)
    expect(events).toEqual(['get 1000000000', 'write 1000000001', 'converted 1'])
    expect(closed()).toBe(true)
  })
})
