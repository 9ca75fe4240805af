// A module-resolution hook: a plugin's `import ... from 'lmt'` resolves to the running lmt, whether or not the
// plugin has lmt in its own node_modules. One copy of lmt means one BaseConverter, one codec registry.
let entry

export function initialize(data) {
  entry = data.entry
}

export async function resolve(specifier, context, next) {
  if (specifier === 'lmt') return {url: entry, shortCircuit: true}
  return next(specifier, context)
}
