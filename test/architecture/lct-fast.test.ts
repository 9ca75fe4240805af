// The .lct accelerators live in src/formats/lct/fast/ behind one seam (src/formats/lct/record-decoding.ts): the formats and the
// replay model never import them; only the places that choose a decoding for a command do (none inside src/formats/lct/).
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const SRC = resolve(import.meta.dirname, '../../src')
/** the modules that pick the decoding lmt's commands read traces with */
const CHOOSERS = ['index.ts', 'cli/commands/trace/info.ts', 'replay/run.ts']

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []
  })
}

/** The modules a file imports, resolved to paths under src/. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) =>
    relative(SRC, resolve(file, '..', m[1])),
  )
}

describe('the .lct accelerators stay behind their seam', () => {
  it('no module outside src/formats/lct/fast/ imports it, but the ones that choose a decoding', () => {
    const offenders: string[] = []
    for (const file of files(SRC)) {
      const rel = relative(SRC, file)
      if (rel.startsWith('formats/lct/fast/') || CHOOSERS.includes(rel)) continue
      for (const target of imports(file))
        if (target.startsWith('formats/lct/fast/')) offenders.push(`${rel} → ${target}`)
    }
    expect(offenders).toEqual([])
  })

  it('the accelerators import the plain modules only through the seam and the format they speed up', () => {
    for (const file of files(join(SRC, 'formats/lct/fast')))
      for (const target of imports(file))
        expect(target.startsWith('formats/lct/') || target.startsWith('util/'), `${file} → ${target}`).toBe(
          true,
        )
  })
})
