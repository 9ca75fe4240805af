import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {beforeAll, describe, expect, it} from 'vitest'
import {discoverConverters} from '../../src/plugins/converter-discovery.js'
import {ConverterRegistry} from '../../src/plugins/converter-registry.js'
import {ROOT, tempDir} from '../helpers/cli.js'

const BUILTIN = join(ROOT, 'dist', 'plugins', 'converters')
let registry: ConverterRegistry

const firstLine = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .find((l) => l.trim() !== '') as string
const recognised = (line: string) => registry.recognise(line).map((r) => r.format)

beforeAll(async () => {
  registry = await discoverConverters({builtinDir: BUILTIN})
})

describe('converters say which input a line looks like (looksLike)', () => {
  it.each([
    ['samples/mooncake_conversation_trace.jsonl', ['mooncake']],
    ['test/fixtures/convert/mooncake_conversation_head200.jsonl', ['mooncake']],
    // timestamp 1704110400.0: seconds
    ['test/fixtures/convert/qwen_bailian_sample.jsonl', ['qwen_bailian']],
    ['test/fixtures/convert/event_publisher.log', ['publisher_log']],
    ['test/fixtures/convert/publisher_edge_cases.log', ['publisher_log']],
    ['test/fixtures/convert/text_example_trace.jsonl', ['text_trace']],
    ['test/fixtures/convert/text_example_conversation.jsonl', ['text_trace']],
    // converted traces are nobody's input
    ['test/fixtures/convert/mooncake_conversation_head200.bs512.expected.jsonl', []],
    ['test/fixtures/simulate/A/trace.jsonl', []],
  ])('%s → %j', (file, want) => {
    expect(recognised(firstLine(join(ROOT, file)))).toEqual(want)
  })

  it('tells Qwen-Bailian rows (chat fields or fractional seconds) from Mooncake rows (integer ms)', () => {
    const base = '"input_length": 521, "output_length": 132, "hash_ids": [1, 2]'
    expect(recognised(`{"timestamp": 61, ${base}}`)).toEqual(['mooncake'])
    expect(recognised(`{"timestamp": 61.114, ${base}}`)).toEqual(['qwen_bailian'])
    expect(recognised(`{"timestamp": 6e1, ${base}}`)).toEqual(['qwen_bailian'])
    expect(
      recognised(
        `{"chat_id": 159, "parent_chat_id": -1, "timestamp": 61, "type": "text", "turn": 1, ${base}}`,
      ),
    ).toEqual(['qwen_bailian'])
    expect(recognised('not json at all')).toEqual([])
    expect(recognised('[1, 2]')).toEqual([])
  })

  it('passes over a converter that throws or answers something other than true', () => {
    const r = new ConverterRegistry()
    class GoodConverter {
      static looksLike = () => true
      convertToTraces() {
        return []
      }
    }
    class ThrowingConverter {
      static looksLike = () => {
        throw new Error('boom')
      }
      convertToTraces() {
        return []
      }
    }
    class TruthyConverter {
      static looksLike = () => 'yes'
      convertToTraces() {
        return []
      }
    }
    class MutatingConverter {
      static looksLike = (s: {record: unknown}) => {
        ;(s.record as Record<string, unknown>).hash_ids = 'gone'
        return false
      }
      convertToTraces() {
        return []
      }
    }
    class SilentConverter {
      convertToTraces() {
        return []
      }
    }
    class SeesConverter {
      static looksLike = (s: {record: unknown}) => Array.isArray((s.record as {hash_ids?: unknown}).hash_ids)
      convertToTraces() {
        return []
      }
    }
    for (const cls of [
      GoodConverter,
      ThrowingConverter,
      TruthyConverter,
      MutatingConverter,
      SilentConverter,
      SeesConverter,
    ])
      r.register(cls as never, 'test')
    expect(r.recognise('{"hash_ids": [1]}').map((x) => x.format)).toEqual(['good', 'sees'])
  })
})

describe("a third-party converter's synchronous members, answered on the plugin thread", () => {
  it('looksLike sees the sample (line and record) and inputFiles lists a directory, through the built lmt', async () => {
    const tmp = tempDir()
    try {
      const module = join(tmp.dir, 'zzz.mjs')
      writeFileSync(
        module,
        `import {BaseConverter} from 'lmt'
export class ZzzConverter extends BaseConverter {
  static looksLike(sample) { return sample.record?.zzz === 1 && sample.line.startsWith('{') }
  static inputFiles(dir) { return [dir + '/a', dir + '/b'] }
  async *convertToTraces() {}
}
`,
      )
      // the build's discovery: a module from outside lmt runs on its plugin thread there
      const built = (await import(
        pathToFileURL(join(ROOT, 'dist', 'src', 'plugins', 'converter-discovery.js')).href
      )) as typeof import('../../src/plugins/converter-discovery.js')
      const reg = await built.discoverConverters({builtinDir: BUILTIN, modules: [module]})
      expect(reg.recognise('{"zzz": 1}').map((r) => r.format)).toEqual(['zzz'])
      expect(reg.recognise('{"zzz": 2}').map((r) => r.format)).toEqual([])
      expect(reg.resolve('zzz')?.cls.inputFiles?.('/logs')).toEqual(['/logs/a', '/logs/b'])
    } finally {
      tmp.cleanup()
    }
  })
})
