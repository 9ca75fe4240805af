import {describe, expect, it} from 'vitest'
import {byCommandId, compareCommandIds} from '../../src/vendor/command-id-order.js'

let seed = 77
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const id = (alphabet: string) =>
  Array.from({length: Math.floor(rand() * 7)}, () => alphabet[Math.floor(rand() * alphabet.length)]).join('')

describe('compareCommandIds', () => {
  it('orders ids as localeCompare does', () => {
    // mostly the fast alphabet; some ids beyond it (upper case, other punctuation) go to localeCompare
    for (const alphabet of ['abz09:-', 'ab1:-', 'aAbB:_-. 9é']) {
      for (let i = 0; i < 4000; i++) {
        const a = id(alphabet)
        const b = rand() < 0.3 ? a + id(alphabet) : id(alphabet) // prefixes too
        expect([a, b, Math.sign(compareCommandIds(a, b))]).toEqual([a, b, Math.sign(a.localeCompare(b))])
      }
    }
  })

  it('sorts commands as oclif did', () => {
    const ids = [
      'trace:info',
      'trace',
      'plugins:install',
      'plugins',
      'trace:dump',
      'a-b',
      'a:b',
      'a0',
      'simulate',
    ]
    const commands = ids.map((id) => ({id}))
    expect(commands.sort(byCommandId).map((c) => c.id)).toEqual([...ids].sort((a, b) => a.localeCompare(b)))
  })
})
