// Build step: bundles `lmt simulate`'s command module with the ES modules it imports (and its sweep, inlined and
// evaluated only when a sweep runs) into one ES module, in place of dist/src/commands/simulate.js. Node 20 has no
// compile cache for ES modules, and ~75 of them cost ~0.7 ms each to resolve, read, compile, link and evaluate on
// every run; one module of the same code costs about half of that (docs/performance-notes.md, "Fixed costs of a
// run"). What stays outside, loaded as it is:
// - modules whose state or classes are shared with the rest of the process (bin/run.js, other commands, plugins):
//   one copy of them, as without the bundle (`LmtError`'s instanceof, the interrupt handler's jobs, the guards);
// - what the command imports only on some runs (its plots' renderer, the configuration schemas, the converter
//   discovery of a foreign trace), as before;
// - packages.
// A module's `import.meta.url` stays its own file's URL (worker entries, the progress bar's require), so paths
// relative to it resolve as before.
import {build} from 'esbuild'
import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const src = fileURLToPath(new URL('../dist/src/', import.meta.url))
const entry = `${src}commands/simulate.js`
const outDir = dirname(entry)
const BANNER = '// Built by scripts/bundle-simulate.mjs from the modules of src/ (see there).'
if (readFileSync(entry, 'utf8').startsWith(BANNER))
  throw new Error('bundle-simulate: already bundled (build anew)')

/** dist/src files loaded as they are, with what they import */
const OUTSIDE = [
  'errors.js',
  'util/closest.js',
  'cli/interrupts.js',
  'cli/stdout-guard.js',
  'cli/stdin-argument.js',
  'util/guards/plugin-code.js',
  'util/guards/exit-guard.js',
  'util/guards/prototype-guard.js',
  'simulate/output/plots.js',
  'schemas.js',
  'plugins/converter-discovery.js',
].map((p) => resolve(src, p))

/** The files of `files` and every file they import (statically): a module outside stays one copy. */
async function withImports(files) {
  const {metafile} = await build({
    entryPoints: files,
    bundle: true,
    write: false,
    outdir: outDir,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    metafile: true,
    logLevel: 'error',
  })
  return Object.keys(metafile.inputs).map((p) => resolve(p))
}

const SHARED = await withImports(OUTSIDE)

/** A specifier of `file` from the bundle's folder. */
function fromBundle(file) {
  const path = relative(outDir, file).split(sep).join('/')
  return path.startsWith('.') ? path : `./${path}`
}

const outside = {
  name: 'lmt-outside',
  setup(b) {
    b.onResolve({filter: /^\./}, (args) => {
      const file = resolve(args.resolveDir, args.path)
      return SHARED.includes(file) ? {path: fromBundle(file), external: true} : undefined
    })
    // each module's own URL, not the bundle's
    b.onLoad({filter: /\.js$/}, (args) => {
      const code = readFileSync(args.path, 'utf8')
      if (!code.includes('import.meta.url')) return undefined
      const url = `new URL(${JSON.stringify(fromBundle(args.path))}, import.meta.url).href`
      return {contents: code.replaceAll('import.meta.url', url), loader: 'js'}
    })
  },
}

const result = await build({
  entryPoints: [entry],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  plugins: [outside],
  logLevel: 'warning',
  banner: {js: BANNER},
})
const [out] = result.outputFiles
const imported = [...out.text.matchAll(/^import .* from "(\.[^"]+)"/gm)].map((m) => m[1])
for (const spec of imported)
  if (!SHARED.includes(resolve(outDir, spec))) throw new Error(`bundle-simulate: unexpected import ${spec}`)
writeFileSync(entry, out.text)
rmSync(`${entry}.map`, {force: true}) // tsc's map of the module the bundle replaces
