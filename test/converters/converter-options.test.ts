import {describe, expect, it} from 'vitest'
import {LmtError} from '../../src/errors.js'
import {checkTimezone, TextTraceConverter} from '../../plugins/converters/text-trace/text-trace.js'
import {LmcacheLctConverter} from '../../plugins/converters/lmcache-lct.js'

describe('--timezone', () => {
  it('accepts UTC, local and IANA names; rejects unknown zones', () => {
    expect(checkTimezone('UTC')).toBe('UTC')
    expect(checkTimezone('local')).toBe('local')
    expect(checkTimezone('Asia/Shanghai')).toBe('Asia/Shanghai')
    expect(() => checkTimezone('Mars/Olympus')).toThrow(LmtError)
  })
})

describe("text_trace's options", () => {
  it('are parsed from its own flags and --model-name, with the defaults for flags not given', () => {
    expect(TextTraceConverter.parseOptions({})).toEqual({
      tokenizerPath: undefined,
      modelName: undefined,
      timeField: 'time',
      contentField: 'prompt_messages',
      timezone: 'UTC',
      allowDownload: false,
    })
    expect(
      TextTraceConverter.parseOptions({
        'tokenizer-path': 'tok',
        'model-name': 'qwen3',
        'time-field': 'ts',
        'content-field': 'dialog',
        timezone: 'Asia/Shanghai',
        'allow-download': true,
      }),
    ).toEqual({
      tokenizerPath: 'tok',
      modelName: 'qwen3',
      timeField: 'ts',
      contentField: 'dialog',
      timezone: 'Asia/Shanghai',
      allowDownload: true,
    })
    expect(() => TextTraceConverter.parseOptions({timezone: 'Mars/Olympus'})).toThrow(
      '--timezone: unknown time zone "Mars/Olympus"',
    )
  })

  it('declare their flags in the TEXT CONVERSION help group; lmcache_lct declares --chunk-tokens', () => {
    expect(Object.keys(TextTraceConverter.flags).sort()).toEqual([
      'allow-download',
      'content-field',
      'time-field',
      'timezone',
      'tokenizer-path',
    ])
    for (const def of Object.values(TextTraceConverter.flags)) expect(def.helpGroup).toBe('TEXT CONVERSION')
    expect(LmcacheLctConverter.parseOptions({'chunk-tokens': 64})).toEqual({chunkTokens: 64})
    expect(LmcacheLctConverter.parseOptions({})).toEqual({chunkTokens: 256})
  })
})
