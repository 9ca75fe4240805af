import {existsSync, statSync} from 'node:fs'
import {createRequire, register} from 'node:module'
import {extname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs'])
const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts'])

type TsxApi = {
  register(options: {namespace: string}): {import(specifier: string, parent: string): Promise<unknown>}
}
let tsxApi: Promise<TsxApi | undefined> | undefined

/** The `tsx` ESM API, from lmt's own installation first, then from the current directory; undefined if absent. */
export function loadTsx(): Promise<TsxApi | undefined> {
  tsxApi ??= (async () => {
    try {
      return (await import('tsx/esm/api')) as unknown as TsxApi
    } catch {
      try {
        const req = createRequire(join(process.cwd(), 'noop.js'))
        return (await import(pathToFileURL(req.resolve('tsx/esm/api')).href)) as TsxApi
      } catch {
        return undefined
      }
    }
  })()
  return tsxApi
}

export function isTypeScript(path: string): boolean {
  return TS_EXTENSIONS.has(extname(path)) && !path.endsWith('.d.ts')
}

let selfResolution = false

/**
 * Before the first module from outside lmt loads: make its `import … from 'lmt'` resolve to this lmt (a resolve
 * hook; registered lazily because the hooks thread costs start-up time and memory). Compiled builds only: from sources
 * (the unit tests) nothing outside lmt is imported by name.
 */
function ensureSelfResolution(path: string): void {
  if (selfResolution || !import.meta.url.endsWith('.js')) return
  const lmtRoot = fileURLToPath(new URL('../../', import.meta.url)) // <root>/dist/
  if (resolve(path).startsWith(lmtRoot)) return
  selfResolution = true
  register(new URL('./self-resolve-hook.js', import.meta.url), {
    data: {
      entry: new URL('../index.js', import.meta.url).href,
      subpaths: {
        scan: new URL('../scan.js', import.meta.url).href,
        flags: new URL('../flags.js', import.meta.url).href,
        values: new URL('../values.js', import.meta.url).href,
        converter: new URL('../converter.js', import.meta.url).href,
      },
    },
  })
}

/** Imports a module file (TypeScript through tsx's namespaced loader). */
export async function importFile(path: string): Promise<Record<string, unknown>> {
  ensureSelfResolution(path)
  const url = pathToFileURL(resolve(path)).href
  if (isTypeScript(path)) {
    const api = await loadTsx()
    if (!api) throw new Error('TypeScript modules need the tsx package (npm i tsx)')
    const ns = api.register({namespace: 'lmt-converters'})
    return (await ns.import(url, import.meta.url)) as Record<string, unknown>
  }
  return (await import(url)) as Record<string, unknown>
}

export interface ScannedDir {
  files: string[]
  /** TypeScript files seen when no TypeScript loader is available. */
  skippedTs: number
  missing: boolean
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

/** Whether tsx can be imported, resolved without loading it (loading it is slow; only TypeScript files need it). */
function tsxResolvable(): boolean {
  for (const from of [import.meta.url, pathToFileURL(join(process.cwd(), 'noop.js')).href]) {
    try {
      createRequire(from).resolve('tsx/esm/api')
      return true
    } catch {
      // not installed there
    }
  }
  return false
}

/**
 * Module files under a directory, recursively, in code-unit order of their paths (deterministic discovery).
 * TypeScript files are listed when `typescript` is true, or when it is left out and tsx is installed (checked only
 * if the directory has TypeScript files); otherwise they are counted in `skippedTs`.
 */
export async function scanModuleDir(dir: string, typescript?: boolean): Promise<ScannedDir> {
  const result: ScannedDir = {files: [], skippedTs: 0, missing: false}
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    result.missing = true
    return result
  }
  const {globby} = await import('globby') // loaded on first use: it costs start-up time
  const found = await globby(PATTERNS, {
    cwd: dir,
    ignore: IGNORE,
    dot: false,
    onlyFiles: true,
    followSymbolicLinks: true,
  })
  found.sort(byPathSegments)
  if (typescript === undefined && found.some((rel) => !JS_EXTENSIONS.has(extname(rel))))
    typescript = tsxResolvable()
  for (const rel of found) {
    if (JS_EXTENSIONS.has(extname(rel))) result.files.push(join(dir, rel))
    else if (typescript) result.files.push(join(dir, rel))
    else result.skippedTs++
  }
  return result
}
