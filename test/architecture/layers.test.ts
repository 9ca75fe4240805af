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
  'src/formats/file-chunks.ts': 1,
  'src/formats/json/': 1,
  'src/formats/lct/': 1,
  'src/formats/lmcache/': 1,
  'src/convert/': 2,
  'src/replay/': 2,
  'src/simulate/': 2,
  'src/report/': 2,
  'src/plugins/': 3,
  'src/index.ts': 4,
  'src/flags.ts': 4,
  'plugins/converters/': 5,
  'src/cli/': 6,
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

// static imports and re-exports (type-only ones too: they tie the layers as much), dynamic imports, and imports for
// their effect alone (a module that puts something in when it is loaded)
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]|\bimport\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"](\.[^'"]+)['"]/g

/** The lmt files a file imports, relative to the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(IMPORT)].map((m) =>
    relative(ROOT, resolve(dirname(join(ROOT, file)), m[1] ?? m[2] ?? m[3])).replace(/\.js$/, '.ts'),
  )
}

const files = ['src', 'plugins'].flatMap((d) => sources(join(ROOT, d))).map((f) => relative(ROOT, f))

/** The strongly connected components of more than one node (Tarjan's algorithm): each one is an import cycle. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v) as number)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop() as string
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return found.sort((a, b) => a[0].localeCompare(b[0]))
}

/** The import graph of `files`, each file standing for `node(file)`; edges within one node are left out. */
function importGraph(node: (file: string) => string): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>()
  for (const file of files)
    for (const target of importsOf(file)) {
      const [from, to] = [node(file), node(target)]
      if (from === to) continue
      if (!edges.has(from)) edges.set(from, new Set())
      ;(edges.get(from) as Set<string>).add(to)
    }
  return edges
}

/** A folder is a file's directory, except that each file directly in src/ stands for itself. */
const folderOf = (file: string): string => (dirname(file) === 'src' ? file : dirname(file))

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
    expect(layerOf('src/formats/json/serialize.ts')).toBe(1)
    expect(layerOf('src/convert/records.ts')).toBe(2)
    expect(layerOf('src/util/pyfmt.ts')).toBeLessThan(layerOf('src/formats/json/json-float.ts') as number)
    expect(importsOf('src/convert/records.ts')).toContain('src/formats/json/serialize.ts')
    expect(importsOf('src/cli/commands/convert.ts')).toContain('src/convert/fast/index.ts') // for its effect alone
  })
  it('no file-level import cycle', () => {
    expect(cycles(importGraph((f) => f))).toEqual([])
  })

  it('no folder-level import cycle', () => {
    expect(cycles(importGraph(folderOf))).toEqual([])
  })

  it('finds the cycles of a graph, and places files in their folders', () => {
    const graph = (pairs: string[]) => {
      const edges = new Map<string, Set<string>>()
      for (const p of pairs) {
        const [a, b] = p.split('>')
        edges.set(a, (edges.get(a) ?? new Set()).add(b))
      }
      return edges
    }
    expect(cycles(graph(['a>b', 'b>c', 'c>a', 'c>d', 'd>e', 'e>d', 'f>a']))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ])
    expect(cycles(graph(['a>b', 'b>c', 'a>c']))).toEqual([])
    expect(folderOf('src/errors.ts')).toBe('src/errors.ts')
    expect(folderOf('src/util/pyfmt.ts')).toBe('src/util')
    expect(folderOf('src/report/charts/charts.ts')).toBe('src/report/charts')
  })
})
