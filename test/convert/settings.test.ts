import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  defaultOutputPath,
  fileStem,
  loadConverterConfig,
  parseInstanceBlockSizes,
  parseModelMapping,
} from '../../src/convert/settings.js'
import {LmtError} from '../../src/errors.js'
import {tempDir} from '../helpers/cli.js'

describe('--instance-block-sizes', () => {
  it.each([
    ['a:16, b : 32', {a: 16, b: 32}],
    [':16', {'': 16}],
    ['a:+1_6', {a: 16}],
    ['a:16,a:32', {a: 32}],
    ['', {}],
    ['\u3000a\u3000:\t8\u00a0', {a: 8}],
  ])('%j → %j', (text, expected) => {
    expect(Object.fromEntries(parseInstanceBlockSizes(text))).toEqual(expected)
  })

  it.each(['a:16,', 'a:16:3', 'a:x', 'a:0', 'a:-16', 'a', 'a:1__6', 'a:１６'])(
    'rejects %j as a usage error',
    (text) => {
      try {
        parseInstanceBlockSizes(text)
        expect.unreachable()
      } catch (err) {
        expect(err).toBeInstanceOf(LmtError)
        expect((err as LmtError).exitCode).toBe(2)
      }
    },
  )
})

describe('--model-mapping', () => {
  it('keeps entry order, later duplicates replace', () => {
    expect([...(parseModelMapping(' a : b ,c:d,a:e') ?? [])]).toEqual([
      ['a', 'e'],
      ['c', 'd'],
    ])
    expect(parseModelMapping(undefined)).toBeUndefined()
    expect(() => parseModelMapping('a:b:c')).toThrow(LmtError)
  })
})

describe('converter config', () => {
  it('merges file then inline keys (an overridden key keeps its position)', () => {
    const tmp = tempDir()
    const file = join(tmp.dir, 'c.json')
    writeFileSync(file, '{"a":1,"b":[1,2]}')
    expect(JSON.stringify(loadConverterConfig(file, '{"b":2,"c":null}'))).toBe('{"a":1,"b":2,"c":null}')
    expect(loadConverterConfig(undefined, '')).toEqual({})
    expect(loadConverterConfig(undefined, undefined)).toBeUndefined()
    writeFileSync(file, '\ufeff{"a": 2}') // a UTF-8 BOM (Windows editors) is skipped
    expect(loadConverterConfig(file, undefined)).toEqual({a: 2})
    writeFileSync(file, '[1]')
    expect(() => loadConverterConfig(file, undefined)).toThrow(/^invalid converter config: /)
    expect(() => loadConverterConfig(join(tmp.dir, 'missing.json'), undefined)).toThrow(
      /invalid converter config: cannot read/,
    )
    expect(() => loadConverterConfig(undefined, '{bad')).toThrow(/invalid converter config/)
    tmp.cleanup()
  })
})

describe('output path', () => {
  it.each([
    ['publisher.log', 'publisher'],
    ['x.tar.gz', 'x.tar'],
    ['.bashrc', '.bashrc'],
    ['file.', 'file.'],
    ['noext', 'noext'],
  ])('stem of %s is %s', (name, stem) => {
    expect(fileStem(name)).toBe(stem)
  })

  it('names the output in the current folder, a compressed input by its name without .gz or .zst', () => {
    expect(defaultOutputPath(['d/publisher.log'])).toBe('publisher_optimizer.jsonl')
    expect(defaultOutputPath(['d/a.jsonl', 'e/b.jsonl'])).toBe('merged_optimizer.jsonl')
    expect(defaultOutputPath(['d/a.jsonl.gz'])).toBe('a_optimizer.jsonl')
    expect(defaultOutputPath(['d/a.jsonl.zst'])).toBe('a_optimizer.jsonl')
  })
})
