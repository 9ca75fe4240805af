// Build step: bundles dist/src/vendor/vega-render.js with vega and vega-lite into one CommonJS script beside it,
// which plots load instead of vega's ~40 packages (see src/vendor/vega.ts), and makes V8's code cache for it: the
// script compiled, run and used on sample plots, so that the cache holds the functions a plot needs.
import {build} from 'esbuild'
import {writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

const dir = fileURLToPath(new URL('../dist/src/vendor/', import.meta.url))
await build({
  entryPoints: [`${dir}vega-render.js`],
  outfile: `${dir}vega-render.bundle.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
  alias: {'vega-canvas': fileURLToPath(new URL('./vega-canvas-sync.js', import.meta.url))},
})

const {BUNDLE, BUNDLE_CACHE} = await import('../dist/src/vendor/vega.js')
const {loadBundle} = await import('../dist/src/vendor/vega-bundle.js')
const {renderer, script} = loadBundle(BUNDLE)
// the shapes of lmt's plots: step lines over time, lines with points on a log axis, several series
const values = Array.from({length: 400}, (_, i) => ({
  t: i / 7,
  rate: (i % 50) / 60,
  instance: i % 2 ? 'a' : 'b',
}))
await renderer.renderSvg({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: 'sample',
  width: 640,
  height: 320,
  data: {values},
  mark: {type: 'line', interpolate: 'step-after', point: false},
  encoding: {
    x: {field: 't', type: 'quantitative', title: 'trace time (s)'},
    y: {field: 'rate', type: 'quantitative', axis: {format: '.0%'}, scale: {domain: [0, 1]}},
    color: {field: 'instance', type: 'nominal', title: 'instance'},
  },
})
await renderer.renderSvg({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  width: 640,
  height: 320,
  data: {values: values.slice(0, 40).map((v, i) => ({...v, t: 1000 * (i + 1)}))},
  mark: {type: 'line', point: true},
  encoding: {
    x: {field: 't', type: 'quantitative', scale: {type: 'log'}},
    y: {field: 'rate', type: 'quantitative', axis: {format: '.0%'}},
    color: {field: 'instance', type: 'nominal'},
  },
})
writeFileSync(BUNDLE_CACHE, script.createCachedData())
