import {describe, expect, it} from 'vitest'
import {nestsDeeperThan} from '../../../src/formats/json/json-depth.js'

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not brackets inside strings', () => {
    expect(nestsDeeperThan('[[1]]', 2)).toBe(false)
    expect(nestsDeeperThan('[[[1]]]', 2)).toBe(true)
    expect(nestsDeeperThan('{"a": {"b": []}}', 2)).toBe(true)
    expect(nestsDeeperThan('{"a": 1, "b": [], "c": {}}', 2)).toBe(false)
    expect(nestsDeeperThan('["[[[[", "\\"[[[[", "{{{{\\\\"]', 1)).toBe(false)
    expect(nestsDeeperThan('["\\\\", [[1]]]', 2)).toBe(true)
  })

  it('walks 10^6 levels without recursion', () => {
    expect(nestsDeeperThan('['.repeat(1e6) + ']'.repeat(1e6), 1000)).toBe(true)
    expect(nestsDeeperThan('[]'.repeat(1e6), 1)).toBe(false)
  })
})
