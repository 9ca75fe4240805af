// Build step: bundles dist/src/vendor/vega-render.js with vega and vega-lite into one CommonJS file beside it,
// which plots load instead of vega's ~40 packages (see src/vendor/vega.ts).
import {build} from 'esbuild'
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
