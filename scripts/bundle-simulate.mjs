// Build step: bundles `lmt simulate`'s command module with the ES modules it imports (and its sweep, inlined and
// evaluated only when a sweep runs) into one CommonJS script, dist/src/simulate/command.bundle.cjs, run with a V8
// code cache (src/vendor/command-bundle.ts) by the stub written in place of dist/src/commands/simulate.js. Node 20
// has no compile cache for ES modules, and ~75 of them cost ~0.7 ms each to resolve, read, compile, link and
// evaluate on every run (docs/performance-notes.md, "Fixed costs of a run"). What stays outside, loaded as it is
// (the stub imports it):
// - modules whose state or classes are shared with the rest of the process (bin/run.js, other commands, plugins):
//   one copy of them, as without the bundle (`LmtError`'s instanceof, the interrupt handler's jobs, the guards);
// - what the command imports only on some runs (its plots' renderer, the configuration schemas, the converter
//   discovery of a foreign trace), as before;
// - packages.
// A module's `import.meta.url` stays its own file's URL (worker entries, the progress bar's require), so paths
// relative to it resolve as before. The cache is made by a one-row run (`node scripts/bundle-simulate.mjs cache`).
import {build} from 'esbuild'
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = new URL('../', import.meta.url)
const src = fileURLToPath(new URL('dist/src/', ROOT))
const entry = `${src}commands/simulate.js`
const OUT = `${src}simulate/command.bundle.cjs`
const BANNER = '// Built by scripts/bundle-simulate.mjs from the modules of src/ (see there).'

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
    outdir: src,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    metafile: true,
    logLevel: 'error',
  })
  return Object.keys(metafile.inputs).map((p) => resolve(p))
}

/** a file's name in the bundle: its path under dist/src */
const nameOf = (file) => relative(src, file).split(sep).join('/')

async function bundle() {
  if (readFileSync(entry, 'utf8').startsWith(BANNER))
    throw new Error('bundle-simulate: already bundled (build anew)')
  const shared = await withImports(OUTSIDE)
  const outside = {
    name: 'lmt-outside',
    setup(b) {
      b.onResolve({filter: /^\./}, (args) => {
        const file = resolve(args.resolveDir, args.path)
        return shared.includes(file) ? {path: `lmt:${nameOf(file)}`, external: true} : undefined
      })
      // each module's own URL, not the bundle's
      b.onLoad({filter: /\.js$/}, (args) => {
        const code = readFileSync(args.path, 'utf8')
        if (!code.includes('import.meta.url')) return undefined
        const url = `__lmtModuleUrl(${JSON.stringify(nameOf(args.path))})`
        return {contents: code.replaceAll('import.meta.url', url), loader: 'js'}
      })
    },
  }
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // class and function names as in the modules (a command's class name is oclif's, errors' are rendered)
    keepNames: true,
    plugins: [outside],
    logLevel: 'warning',
    banner: {js: BANNER},
  })
  // a script compiled by node:vm has no import() of its own: the outside modules' go through the loader
  const code = result.outputFiles[0].text.replaceAll('import("lmt:', '__lmtImport("lmt:')
  const left = code.match(/\bimport\((?!\))|import\.meta/g)
  if (left) throw new Error(`bundle-simulate: ${left.join(', ')} left in the bundle`)
  const required = [...new Set([...code.matchAll(/require\("(lmt:[^"]+)"\)/g)].map((m) => m[1]))]
  for (const id of required)
    if (!shared.includes(resolve(src, id.slice(4)))) throw new Error(`bundle-simulate: unexpected ${id}`)
  writeFileSync(OUT, code)
  writeFileSync(entry, stub(required))
  rmSync(`${entry}.map`, {force: true}) // tsc's map of the module the stub replaces
}

/** The command's module: the outside modules the bundle requires, imported, and the bundle run with them. */
function stub(required) {
  const fromCommands = (id) => JSON.stringify(`../${id.slice(4)}`)
  return `${BANNER}
${required.map((id, i) => `import * as m${i} from ${fromCommands(id)}`).join('\n')}
import {loadCommandBundle} from '../vendor/command-bundle.js'

const bundle = loadCommandBundle(new URL('../simulate/command.bundle.cjs', import.meta.url), {
${required.map((id, i) => `  ${JSON.stringify(id)}: m${i},`).join('\n')}
})
export default bundle.default
`
}

/** In this process: a one-row run with its plot, then the bundle's cache written. */
async function makeCache() {
  const dir = mkdtempSync(join(tmpdir(), 'lmt-bundle-simulate-'))
  try {
    const trace = join(dir, 'one.jsonl')
    writeFileSync(
      trace,
      '{"type": "get", "instance_id": "i", "timestamp_ns": 0, "keys": [1], "input_len": 16}\n',
    )
    const {loadOclifCore} = await import('../dist/src/vendor/oclif-core.js')
    const core = await loadOclifCore()
    core.settings.enableAutoTranspile = false
    const argv = ['simulate', '--trace', trace, '--capacity-blocks', '8', '-o', join(dir, 'out'), '-q']
    await core.run(argv, new URL('bin/run.js', ROOT).href)
    const {bundleCachePath, loadedBundleScript} = await import('../dist/src/vendor/command-bundle.js')
    const script = loadedBundleScript(OUT)
    if (script === undefined) throw new Error('bundle-simulate: the run did not load the bundle')
    writeFileSync(bundleCachePath(OUT), script.createCachedData())
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

if (process.argv[2] === 'cache') await makeCache()
else {
  await bundle()
  const made = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'cache'], {stdio: 'inherit'})
  if (made.status !== 0) throw new Error('bundle-simulate: the code cache was not made')
}
