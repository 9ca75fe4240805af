// The layers of docs/architecture.md, checked against the code: every import of src/ and plugins/ runs to the
// same layer or one below it. The table is the page's; a new folder gets a row here and there.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/** Folder (ending in /) or file → layer, from the bottom up, as in docs/architecture.md. */
const LAYERS: Record<string, number> = {
  'src/errors.ts': 0,
  'src/schemas.ts': 0,
  'src/hash/': 0,
  'src/util/': 0,
  'src/vendor/': 0,
  'src/jsonl/': 1,
  'src/lct/': 1,
  'src/lmcache/': 1,
  'src/convert/': 2,
  'src/replay/': 2,
  'src/simulate/': 2,
  'src/report/': 2,
  'src/plugins/': 3,
  'src/convert/convert.ts': 3,
  'src/index.ts': 4,
  'src/flags.ts': 4,
  'plugins/converters/': 5,
  'src/cli/': 6,
  'src/commands/': 6,
  'src/hooks/': 6,
}

function sources(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sources(path))
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

function layerOf(file: string): number | undefined {
  let best: string | undefined
  for (const key of Object.keys(LAYERS))
    if ((key.endsWith('/') ? file.startsWith(key) : file === key) && key.length > (best?.length ?? 0))
      best = key
  return best === undefined ? undefined : LAYERS[best]
}

// static imports and re-exports (type-only ones too: they tie the layers as much) and dynamic imports
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g

/** The lmt files a file imports, relative to the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(IMPORT)].map((m) =>
    relative(ROOT, resolve(dirname(join(ROOT, file)), m[1] ?? m[2])).replace(/\.js$/, '.ts'),
  )
}

const files = ['src', 'plugins'].flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f))

describe('layers (docs/architecture.md)', () => {
  it('every file of src/ and plugins/ has a layer', () => {
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([])
  })

  it('no file imports a layer above its own', () => {
    const upward: string[] = []
    for (const file of files)
      for (const target of importsOf(file)) {
        const to = layerOf(target)
        if (to !== undefined && to > (layerOf(file) as number)) upward.push(`${file} -> ${target}`)
      }
    expect(upward).toEqual([])
  })

  it('the table is the one of docs/architecture.md', () => {
    const page = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
    const documented: Record<string, number> = {}
    for (const [, layer, folders] of page.matchAll(/^\| (\d+)\. [^|]*\| ([^|]*) \|/gm))
      for (const [, path] of folders.matchAll(/`((?:src|plugins)\/[^`]*)`/g)) documented[path] = Number(layer)
    expect(documented).toEqual(LAYERS)
  })

  it("reads a file's imports as repository paths and places them in their layers", () => {
    expect(layerOf('src/jsonl/serialize.ts')).toBe(1)
    expect(layerOf('src/convert/records.ts')).toBe(2)
    expect(layerOf('src/util/pyfmt.ts')).toBeLessThan(layerOf('src/jsonl/json-float.ts') as number)
    expect(importsOf('src/convert/records.ts')).toContain('src/jsonl/serialize.ts')
  })
})
