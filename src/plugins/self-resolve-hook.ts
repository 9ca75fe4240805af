// A Node module-resolution hook (runs on Node's hooks thread): `import … from 'lmt'` in a plugin resolves to the
// running lmt, whether or not the plugin has lmt in its own node_modules. One copy of lmt means one
// BaseConverter, one MapDispatcher, one codec registry.
interface ResolveResult {
  url: string
  shortCircuit?: boolean
}
type NextResolve = (specifier: string, context: unknown) => Promise<ResolveResult>

let entry = ''

export function initialize(data: {entry: string}): void {
  entry = data.entry
}

export async function resolve(
  specifier: string,
  context: unknown,
  next: NextResolve,
): Promise<ResolveResult> {
  if (specifier === 'lmt' && entry !== '') return {url: entry, shortCircuit: true}
  return next(specifier, context)
}
