// The schemas of the inputs lmt convert reads (schemas/*-row, publisher-event, text-conversation) describe the real
// inputs: the bundled Mooncake trace and the converter fixtures validate, and what the converters refuse does not.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {schemaRegistry, validatorFor} from '../../src/schemas.js'
import {FIXTURES, ROOT} from '../helpers/cli.js'

const CONVERT = join(FIXTURES, 'convert')
const lines = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
const invalidLines = (schema: string, path: string): number[] => {
  const validate = validatorFor(schema)
  const bad: number[] = []
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return
      let doc: unknown
      try {
        doc = JSON.parse(line)
      } catch {
        return // not JSON: the converter reports it (invalid_json), no schema is asked
      }
      if (!validate(doc)) bad.push(i + 1)
    })
  return bad
}

describe('input schemas', () => {
  it('Mooncake rows: the bundled trace and the fixture, as mooncake and as qwen_bailian rows', () => {
    for (const path of [
      join(ROOT, 'samples', 'mooncake_conversation_trace.jsonl'),
      join(CONVERT, 'mooncake_conversation_head200.jsonl'),
    ]) {
      expect(lines(path).length).toBeGreaterThan(100)
      expect(invalidLines('mooncake-row.schema.json', path)).toEqual([])
      expect(invalidLines('qwen-bailian-row.schema.json', path)).toEqual([])
    }
  })

  it('Qwen-Bailian rows: the usual ones pass; a missing length, a fractional timestamp for mooncake, string ids fail', () => {
    const qwen = validatorFor('qwen-bailian-row.schema.json')
    const mooncake = validatorFor('mooncake-row.schema.json')
    const [first, second] = lines(join(CONVERT, 'qwen_bailian_sample.jsonl'))
      .slice(0, 2)
      .map((l) => JSON.parse(l))
    expect(qwen(first) && qwen(second)).toBe(true)
    expect(mooncake(second)).toBe(false) // 61.114: seconds, not integer milliseconds
    expect(qwen({timestamp: 1, hash_ids: [1]})).toBe(false)
    expect(qwen({timestamp: 1, input_length: 16, hash_ids: ['1']})).toBe(false)
    expect(qwen({timestamp: 1, input_length: 0, hash_ids: []})).toBe(false)
  })

  it('publisher events: the real log passes; in the edge cases only the non-positive input_len fails', () => {
    expect(lines(join(CONVERT, 'event_publisher.log')).length).toBeGreaterThan(200)
    expect(invalidLines('publisher-event.schema.json', join(CONVERT, 'event_publisher.log'))).toEqual([])
    // line 12 is not JSON; line 14 has input_len 0 (nonpositive_input_length); the rest are well-formed events,
    // dropped or not (a min-replica start, an unknown type, a finish of an unknown session)
    expect(invalidLines('publisher-event.schema.json', join(CONVERT, 'publisher_edge_cases.log'))).toEqual([
      14,
    ])
  })

  it('text conversations: the fixtures, with their field names; a time without its fraction fails', () => {
    const time = schemaRegistry().getSchema('text-conversation.schema.json#/$defs/time')
    const content = schemaRegistry().getSchema('text-conversation.schema.json#/$defs/content')
    expect(time && content).toBeTruthy()
    const cases: Array<[string, string, string]> = [
      ['text_example_trace.jsonl', 'time', 'text'],
      ['text_example_conversation.jsonl', 'timestamp', 'dialog'],
    ]
    for (const [file, timeField, contentField] of cases)
      for (const row of lines(join(CONVERT, file)).map((l) => JSON.parse(l))) {
        expect(time?.(row[timeField]), `${file}: ${row[timeField]}`).toBe(true)
        expect(content?.(row[contentField])).toBe(true)
      }
    expect(time?.('2024-01-01 12:00:00')).toBe(false)
    expect(time?.('2024-01-01  12:00:00,25')).toBe(true)
    expect(content?.(null)).toBe(false)
    expect(
      validatorFor('text-conversation.schema.json')({
        time: '2024-01-01 12:00:00.1',
        prompt_messages: [{role: 'user', content: 'hi'}],
      }),
    ).toBe(true)
  })
})

describe('the schema registry', () => {
  it('compiles every schema without a strict-mode message on the console', async () => {
    const messages: unknown[] = []
    const spies = (['warn', 'log', 'error'] as const).map((k) =>
      vi.spyOn(console, k).mockImplementation((...a) => void messages.push(a)),
    )
    try {
      // a registry of its own, compiled here (the other tests have compiled the module's)
      vi.resetModules()
      const fresh = await import('../../src/schemas.js')
      const registry = fresh.schemaRegistry()
      expect(registry).not.toBe(schemaRegistry())
      const names = Object.keys(registry.schemas).filter((n) => n.endsWith('.schema.json'))
      expect(names.length).toBeGreaterThan(10)
      for (const n of names) expect(typeof fresh.validatorFor(n)).toBe('function')
    } finally {
      for (const s of spies) s.mockRestore()
    }
    expect(messages).toEqual([])
  })
})
