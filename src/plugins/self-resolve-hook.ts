// A Node module-resolution hook (runs on Node's hooks thread): `import … from 'lmt'` in a plugin resolves to the
// running lmt, whether or not the plugin has lmt in its own node_modules. One copy of lmt means one
// BaseConverter, one MapDispatcher, one codec registry.
interface ResolveResult {
  url: string
  shortCircuit?: boolean
}
type NextResolve = (specifier: string, context: unknown) => Promise<ResolveResult>

let entry = ''
/** the optional entries (`lmt/scan`, `lmt/flags`, `lmt/values`, `lmt/converter`) by subpath */
let subpaths: Record<string, string> = {}

export function initialize(data: {entry: string; subpaths?: Record<string, string>}): void {
  entry = data.entry
  subpaths = data.subpaths ?? {}
}

export async function resolve(
  specifier: string,
  context: unknown,
  next: NextResolve,
): Promise<ResolveResult> {
  if (specifier === 'lmt' && entry !== '') return {url: entry, shortCircuit: true}
  if (specifier.startsWith('lmt/') && Object.hasOwn(subpaths, specifier.slice(4)))
    return {url: subpaths[specifier.slice(4)], shortCircuit: true}
  return next(specifier, context)
}
