import {existsSync, statSync} from 'node:fs'
import {register} from 'node:module'
import {join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

let selfResolution = false

/**
 * Before the first module from outside lmt loads: make its `import … from 'lmt'` resolve to this lmt and compile its
 * TypeScript (self-resolve-hook.ts; registered lazily because the hooks thread costs start-up time and memory).
 * Compiled builds only: from sources (the unit tests) nothing outside lmt is imported by name, and vitest compiles
 * TypeScript itself.
 */
function ensureSelfResolution(path: string): void {
  if (selfResolution || !import.meta.url.endsWith('.js')) return
  const lmtRoot = fileURLToPath(new URL('../../', import.meta.url)) // <root>/dist/
  if (resolve(path).startsWith(lmtRoot)) return
  selfResolution = true
  register(new URL('./self-resolve-hook.js', import.meta.url), {
    data: {
      entry: new URL('../index.js', import.meta.url).href,
      subpaths: {flags: new URL('../flags.js', import.meta.url).href},
    },
  })
}

/** Makes ready for modules from outside lmt at once (the plugin thread, which loads nothing else, does so first). */
export function prepareForPluginModules(): void {
  ensureSelfResolution('/')
}

/** Imports a module file (TypeScript compiled to an ES module as it loads: self-resolve-hook.ts). */
export async function importFile(path: string): Promise<Record<string, unknown>> {
  ensureSelfResolution(path)
  return (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>
}

const PATTERNS = ['**/*.{js,mjs,cjs,ts,mts,cts}']
// names starting with `.` are already excluded (globby's `dot: false`)
const IGNORE = [
  '**/node_modules/**',
  '**/_*',
  '**/_*/**',
  '**/*.d.ts',
  '**/*.d.mts',
  '**/*.d.cts',
  '**/*.test.*',
  '**/*.spec.*',
]

/** Orders paths as a depth-first walk that visits each directory's entries in code-unit order. */
function byPathSegments(a: string, b: string): number {
  const sa = a.split('/')
  const sb = b.split('/')
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (sa[i] !== sb[i]) return sa[i] < sb[i] ? -1 : 1
  }
  return sa.length - sb.length
}

/**
 * Module files under a directory, recursively, in code-unit order of their paths (deterministic discovery); `missing`
 * when there is no such directory.
 */
export async function scanModuleDir(dir: string): Promise<{files: string[]; missing: boolean}> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return {files: [], missing: true}
  const {globby} = await import('globby') // loaded on first use: it costs start-up time
  const found = await globby(PATTERNS, {
    cwd: dir,
    ignore: IGNORE,
    dot: false,
    onlyFiles: true,
    followSymbolicLinks: true,
  })
  return {files: found.sort(byPathSegments).map((rel) => join(dir, rel)), missing: false}
}
