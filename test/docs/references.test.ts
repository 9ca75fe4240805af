// The repository stands alone: code and tests cite lmt's own docs/, never a folder beside the clone, and every
// section they cite exists there.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (name === 'node_modules' || name === 'fixtures' || name.startsWith('.')) continue
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(path)
  }
  return out
}

const files = ['src', 'plugins', 'test', 'scripts', 'bin'].flatMap((d) => sources(join(ROOT, d)))

describe('references', () => {
  it('no code, test or script reads or cites the shared folder beside a clone, or a spec outside docs/', () => {
    const shared = ['..', 'shared'].join('/') // spelled apart so that this file does not match itself
    const hits = files.filter((f) => readFileSync(f, 'utf8').includes(shared)).map((f) => relative(ROOT, f))
    expect(hits).toEqual([])
    const bare = files.filter((f) =>
      /(?<![\w/.-])(simulate|convert|lct|storage-replay)\.md\b/.test(readFileSync(f, 'utf8')),
    )
    expect(bare.map((f) => relative(ROOT, f))).toEqual([])
  })

  it('every docs/<page>.md §N cited exists as a heading of that page', () => {
    const missing: string[] = []
    let cited = 0
    for (const f of files)
      for (const m of readFileSync(f, 'utf8').matchAll(/docs\/([\w-]+\.md) §(\d+(?:\.\d+)*)/g)) {
        cited++
        const page = readFileSync(join(ROOT, 'docs', m[1]), 'utf8')
        const heading = new RegExp(`^#+ ${m[2].replace(/\./g, '\\.')}\\.? `, 'm')
        if (!heading.test(page)) missing.push(`${relative(ROOT, f)}: docs/${m[1]} §${m[2]}`)
      }
    expect(cited).toBeGreaterThan(50)
    expect(missing).toEqual([])
  })

  it('no code comment or doc names an issue number or a work session (they say why, and docs/ the current state)', () => {
    // spelled apart so that this file does not match itself
    const pattern = new RegExp(
      [
        '\\bissue [0-9]+',
        '\\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth) session',
      ].join('|'),
      'i',
    )
    const docs = readdirSync(join(ROOT, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => join(ROOT, 'docs', n))
    const hits = [...files, ...docs, join(ROOT, 'README.md')].filter((f) =>
      pattern.test(readFileSync(f, 'utf8')),
    )
    expect(hits.map((f) => relative(ROOT, f))).toEqual([])
  })
})
