// The shape of src/simulate (docs/architecture.md, "Inside src/simulate/"): named sub-folders, no import cycle,
// and "replay" kept for `lmt replay` of .lct traces (simulate's pass of rows through the engine is a play).
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const SIM = join(ROOT, 'src', 'simulate')

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** The simulate files a file imports (relative specifiers, `import type` included). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1])
  return specs.map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts')).filter((p) => p.startsWith(SIM))
}

/** One import cycle among `files` (`deps` gives a file's imports), or undefined. */
function findCycle(files: string[], deps: (f: string) => string[]): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'done') return undefined
    if (state.get(f) === 'open') return stack.slice(stack.indexOf(f)).concat(f)
    state.set(f, 'open')
    stack.push(f)
    for (const g of deps(f)) {
      const c = visit(g)
      if (c) return c
    }
    stack.pop()
    state.set(f, 'done')
    return undefined
  }
  for (const f of files) {
    const c = visit(f)
    if (c) return c
  }
  return undefined
}

describe('src/simulate', () => {
  const files = filesUnder(SIM)

  it('is cut into named parts: only the door (index.ts), run.ts (the orchestration) and the seam to the accelerators sit at the top', () => {
    const top = files.filter((f) => dirname(f) === SIM).map((f) => relative(SIM, f))
    expect(top).toEqual(['index.ts', 'run.ts', 'seams.ts'])
    const parts = new Set(files.filter((f) => dirname(f) !== SIM).map((f) => relative(SIM, dirname(f))))
    expect([...parts].sort()).toEqual([
      'config',
      'engine',
      'fast',
      'input',
      'lmcache',
      'oracles',
      'output',
      'run',
      'sweep',
    ])
  })

  it('has one door: nothing outside src/simulate imports its sub-folders', () => {
    const outside = filesUnder(join(ROOT, 'src')).filter((f) => !f.startsWith(SIM + '/'))
    const door = join(SIM, 'index.ts')
    const deep = outside.flatMap((f) =>
      importsOf(f)
        .filter((p) => p !== door)
        .map((p) => `${relative(ROOT, f)} -> ${relative(ROOT, p)}`),
    )
    expect(deep).toEqual([])
    // the check sees the door's users (report/, the commands)
    expect(importsOf(join(ROOT, 'src', 'report', 'curves.ts'))).toContain(door)
  })

  it('keeps its accelerators behind the seam: only the door loads fast/, and fast/ is never imported by the model', () => {
    const fast = join(SIM, 'fast')
    const model = files.filter((f) => !f.startsWith(fast + '/') && f !== join(SIM, 'index.ts'))
    const intoFast = model.flatMap((f) =>
      importsOf(f)
        .filter((p) => p.startsWith(fast + '/'))
        .map((p) => `${relative(SIM, f)} -> ${relative(SIM, p)}`),
    )
    expect(intoFast).toEqual([])
    expect(importsOf(join(SIM, 'index.ts'))).toContain(join(fast, 'index.ts'))
  })

  it('has no import cycle', () => {
    expect(findCycle(files, importsOf)?.map((p) => relative(SIM, p))).toBeUndefined()
  })

  it('the cycle check finds a cycle when there is one, type imports included', () => {
    const graph: Record<string, string[]> = {run: ['sweep'], sweep: ['rows', 'csv'], rows: ['run'], csv: []}
    expect(findCycle(Object.keys(graph), (f) => graph[f])).toEqual(['run', 'sweep', 'rows', 'run'])
    expect(findCycle(['csv', 'sweep'], (f) => (f === 'sweep' ? ['csv'] : []))).toBeUndefined()
    // config.ts imports notes.ts (its Notice type): read as an edge like any other
    expect(importsOf(join(SIM, 'config', 'config.ts'))).toContain(join(SIM, 'config', 'notes.ts'))
  })

  it('names no file after "replay" (that word is the .lct replay\'s)', () => {
    expect(files.filter((f) => /replay/i.test(relative(SIM, f)))).toEqual([])
  })
})
