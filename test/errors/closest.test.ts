import {describe, expect, it} from 'vitest'
import {closest, editDistance} from '../../src/errors.js'

describe('did-you-mean matching', () => {
  it('counts edits, an adjacent swap as one', () => {
    expect(editDistance('moonckae', 'mooncake')).toBe(1) // "ka" for "ak"
    expect(editDistance('convrt', 'convert')).toBe(1)
    expect(editDistance('abc', 'xyz')).toBe(3)
  })

  it('suggests a near name, a name the input starts, and nothing for a far one', () => {
    expect(closest('moonckae', ['mooncake', 'qwen_bailian'])).toBe('mooncake')
    expect(closest('--formt', ['--format', '--output'])).toBe('--format')
    expect(closest('qwen', ['mooncake', 'qwen_bailian'])).toBe('qwen_bailian')
    expect(closest('LRU', ['lru', 'ttl'])).toBe('lru')
    expect(closest('nope', ['mooncake', 'publisher_log'])).toBeUndefined()
  })
})
