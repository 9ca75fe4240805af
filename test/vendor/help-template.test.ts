import {createRequire} from 'node:module'
import {describe, expect, it} from 'vitest'
import {isPlainTemplate} from '../../src/vendor/help-template.js'

// the EJS that oclif's help renders with (oclif's dependency, untyped)
const ejs = createRequire(import.meta.resolve('@oclif/core'))('ejs') as {
  render(text: string, data: object): string
}

let seed = 31
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const PIECES = [
  'a',
  ' ',
  '\n',
  '\r\n',
  '\\',
  '"',
  "'",
  '<',
  '>',
  '%',
  '-',
  '_',
  '=',
  '#',
  '$',
  '`',
  '${x}',
  'é',
  '<b>',
]

describe('isPlainTemplate', () => {
  it('is true only for text EJS gives back unchanged', () => {
    let plain = 0
    for (let i = 0; i < 3000; i++) {
      const text = Array.from(
        {length: Math.floor(rand() * 12)},
        () => PIECES[Math.floor(rand() * PIECES.length)],
      ).join('')
      if (!isPlainTemplate(text)) continue
      plain++
      expect(ejs.render(text, {config: {bin: 'lmt'}})).toBe(text)
    }
    expect(plain).toBeGreaterThan(1000)
  })

  it('leaves templates and delimiters to EJS', () => {
    for (const text of ['<%= config.bin %> simulate', 'a <%% b', 'a %> b', 'a -%> b', '<%# c %>']) {
      expect(isPlainTemplate(text)).toBe(false)
    }
    expect(isPlainTemplate(undefined)).toBe(false)
    expect(ejs.render('a %> b', {})).not.toBe('a %> b') // why a lone close counts: EJS drops it
  })
})
