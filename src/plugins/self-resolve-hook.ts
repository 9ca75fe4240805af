// Node module-customization hooks (run on Node's hooks thread) for modules from outside lmt:
// - `import … from 'lmt'` (and `lmt/<entry>`) resolves to the running lmt, whether or not the plugin has lmt in its
//   own node_modules. One copy of lmt means one BaseConverter, one MapDispatcher, one codec registry.
// - TypeScript modules (`.ts`, `.mts`) are compiled by esbuild to ES modules as they load (types are removed, not
//   checked), whatever the `type` of their package: an ES module is the only kind whose `import 'lmt'` these hooks
//   can resolve (Node 20 resolves a `require()` without them). `.cts` compiles to CommonJS. Inside TypeScript,
//   `./x.js` may name `./x.ts` and an extensionless `./x` names `./x.ts` or `./x/index.ts`, as tsc allows.
import {readFile} from 'node:fs/promises'
import {fileURLToPath} from 'node:url'

interface ResolveResult {
  url: string
  format?: string | null
  shortCircuit?: boolean
}
type NextResolve = (specifier: string, context: {parentURL?: string}) => Promise<ResolveResult>

interface LoadResult {
  format: string
  source?: string | ArrayBuffer | Uint8Array | null
  shortCircuit?: boolean
}
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>

let entry = ''
/** the other entries (`lmt/flags`) by subpath */
let subpaths: Record<string, string> = {}

export function initialize(data: {entry: string; subpaths?: Record<string, string>}): void {
  entry = data.entry
  subpaths = data.subpaths ?? {}
}

const TYPESCRIPT = /\.(c|m)?ts$/

function isTypeScriptUrl(url: string): boolean {
  const path = url.split(/[?#]/, 1)[0]
  return url.startsWith('file:') && TYPESCRIPT.test(path) && !/\.d\.(c|m)?ts$/.test(path)
}

/** what a relative specifier written in TypeScript may name, in the order tsc tries them */
function typeScriptCandidates(specifier: string): string[] {
  const js = /\.(c|m)?js$/.exec(specifier)
  if (js) return [specifier.slice(0, -js[0].length) + `.${js[1] ?? ''}ts`]
  if (/\.[A-Za-z0-9]+$/.test(specifier.split('/').pop() ?? '')) return []
  return [`${specifier}.ts`, `${specifier}/index.ts`]
}

export async function resolve(
  specifier: string,
  context: {parentURL?: string},
  next: NextResolve,
): Promise<ResolveResult> {
  if (specifier === 'lmt' && entry !== '') return {url: entry, shortCircuit: true}
  if (specifier.startsWith('lmt/') && Object.hasOwn(subpaths, specifier.slice(4)))
    return {url: subpaths[specifier.slice(4)], shortCircuit: true}
  const relative = specifier.startsWith('./') || specifier.startsWith('../')
  if (!relative || context.parentURL === undefined || !isTypeScriptUrl(context.parentURL))
    return next(specifier, context)
  try {
    return await next(specifier, context)
  } catch (err) {
    if ((err as {code?: string})?.code !== 'ERR_MODULE_NOT_FOUND') throw err
    for (const candidate of typeScriptCandidates(specifier)) {
      try {
        return await next(candidate, context)
      } catch {
        // not this one
      }
    }
    throw err
  }
}

type Esbuild = typeof import('esbuild')
let esbuild: Promise<Esbuild> | undefined

export async function load(url: string, context: unknown, next: NextLoad): Promise<LoadResult> {
  if (!isTypeScriptUrl(url)) return next(url, context)
  const path = fileURLToPath(url)
  const commonJs = path.endsWith('.cts')
  esbuild ??= import('esbuild')
  const {transform} = await esbuild
  const {code} = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: commonJs ? 'cjs' : 'esm',
    target: 'node20',
    sourcefile: path,
    sourcemap: 'inline',
  })
  return {format: commonJs ? 'commonjs' : 'module', source: code, shortCircuit: true}
}
