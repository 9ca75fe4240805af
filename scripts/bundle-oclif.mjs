// Build step: bundles @oclif/core into one CommonJS script, dist/src/vendor/oclif-core.bundle.cjs, which bin/run.js
// runs as the package (see src/vendor/oclif-core.ts), and makes V8's code caches for it: the script compiled and
// run through lmt's start-up (the configuration loaded, the version and help printed), so that a cache holds the
// functions a start-up compiles.
import {build} from 'esbuild'
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'

const ROOT = new URL('../', import.meta.url)

const OUT = fileURLToPath(new URL('dist/src/vendor/oclif-core.bundle.cjs', ROOT))

/**
 * The import() calls of a file URL (oclif's of ESM commands, hooks and ts-node; lilconfig's of a JavaScript
 * configuration) made calls of the function the bundle is run with: a script compiled by node:vm has no import() of
 * its own without an experimental flag. A literal import('name') stays: esbuild bundles the package (wsl-utils).
 */
const rewriteImports = (text) => text.replace(/\bawait import\((?!['"])/g, 'await __importModule(')

const dynamicImports = {
  name: 'oclif-dynamic-imports',
  setup(b) {
    b.onLoad({filter: /[\\/]node_modules[\\/].*\.c?js$/}, (args) => ({
      contents: rewriteImports(readFileSync(args.path, 'utf8')),
      loader: 'js',
    }))
  },
}

const vendorModule = (name) => JSON.stringify(fileURLToPath(new URL(`dist/src/vendor/${name}`, ROOT)))

/**
 * Lines of oclif replaced by lmt's own functions, with the same results, where oclif's cost every run of lmt
 * (docs/performance-notes.md, "Start-up"). The build fails if a line is not found (oclif changed it).
 */
const REWRITES = [
  {
    // Plugin.load sorts a plugin's commands by localeCompare, which loads ICU's collator at every start
    file: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id))',
    to: () => `.sort(require(${vendorModule('command-id-order.js')}).byCommandId)`,
  },
  {
    // help renders every string it prints as an EJS template, compiled with new Function each time
    file: /[\\/]@oclif[\\/]core[\\/]lib[\\/]help[\\/]util\.js$/,
    from: 'return ejs_1.default.render(t, context);',
    to: () =>
      `return require(${vendorModule('help-template.js')}).isPlainTemplate(t) ? t : ejs_1.default.render(t, context);`,
  },
]
const oclifRewrites = {
  name: 'oclif-rewrites',
  setup(b) {
    for (const {file, from, to} of REWRITES) {
      b.onLoad({filter: file}, (args) => {
        const text = readFileSync(args.path, 'utf8')
        if (!text.includes(from)) throw new Error(`bundle-oclif: no "${from}" in ${args.path}`)
        return {contents: rewriteImports(text).replace(from, to()), loader: 'js'}
      })
    }
  },
}

async function bundle() {
  await build({
    entryPoints: [createRequire(import.meta.url).resolve('@oclif/core')],
    outfile: OUT,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    // class and function names as in the package: lmt tells oclif's errors by their constructor's name
    keepNames: true,
    legalComments: 'eof',
    logLevel: 'warning',
    // only read for a development plugin's tsconfig, and large
    external: ['typescript'],
    plugins: [oclifRewrites, dynamicImports],
  })
  // an import() left (a form the rewrite above does not know) would fail at run time: the build fails instead
  const left = readFileSync(OUT, 'utf8').match(/\bimport\((?!\))/g)
  if (left) throw new Error(`bundle-oclif: ${left.length} import() left in the bundle`)
}

/** In this process: the bundle run through a start-up with stdout muted, then its cache written. */
async function makeCache() {
  const {loadOclifBundle, OCLIF_BUNDLE_CACHE} = await import('../dist/src/vendor/oclif-core.js')
  const {core, script} = loadOclifBundle()
  core.settings.enableAutoTranspile = false
  const write = process.stdout.write
  process.stdout.write = (_chunk, encoding, done) => {
    ;(typeof encoding === 'function' ? encoding : done)?.()
    return true
  }
  try {
    for (const argv of [['--version'], ['--help'], ['simulate', '--help'], ['trace', 'info', '--help']]) {
      await core.run(argv, new URL('bin/run.js', ROOT).href)
    }
  } finally {
    process.stdout.write = write
  }
  writeFileSync(OCLIF_BUNDLE_CACHE, script.createCachedData())
}

const [mode] = process.argv.slice(2)
if (mode === undefined) {
  await bundle()
  const made = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'cache'], {stdio: 'inherit'})
  if (made.status !== 0) throw new Error('bundle-oclif: the code cache was not made')
} else {
  await makeCache()
}
