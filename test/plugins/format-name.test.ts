import {describe, expect, it} from 'vitest'
import {camelToSnake, formatNameOf} from '../../src/plugins/converter-registry.js'

describe('format names from class names (docs/convert.md §3.4)', () => {
  it.each([
    ['QwenBailianConverter', 'qwen_bailian'],
    ['PublisherLogConverter', 'publisher_log'],
    ['TextTraceConverter', 'text_trace'],
    ['MyConverter', 'my'],
    ['HTTPLogConverter', 'http_log'],
    ['ABConverter', 'ab'],
    ['JSONLConverter', 'jsonl'],
    ['S3LogConverter', 's3_log'],
    ['Qwen2BailianConverter', 'qwen2_bailian'],
    ['MyJSONConverter', 'my_json'],
    ['MooncakeConverter', 'mooncake'],
    ['XMLHttpRequestConverter', 'xml_http_request'],
    ['My2JSONConverter', 'my2json'],
    ['Mooncake_TraceConverter', 'mooncake__trace'],
  ])('%s → %s', (cls, format) => {
    expect(formatNameOf(cls)).toBe(format)
  })

  it('ignores names that do not follow the convention', () => {
    expect(formatNameOf('Converter')).toBeUndefined()
    expect(formatNameOf('BaseConverter')).toBeUndefined()
    expect(formatNameOf('Reader')).toBeUndefined()
  })

  it('uses Unicode case properties', () => {
    expect(camelToSnake('ÉcoleÀParis')).toBe('école_à_paris')
  })
})
