// Build step: bundles dist/src/vendor/vega-render.js with vega and vega-lite into one ES module beside it, which
// plots load instead of vega's ~40 packages (see src/vendor/vega.ts).
import {build} from 'esbuild'
import {fileURLToPath} from 'node:url'

const dir = fileURLToPath(new URL('../dist/src/vendor/', import.meta.url))
await build({
  entryPoints: [`${dir}vega-render.js`],
  outfile: `${dir}vega-render.bundle.js`,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'eof',
  logLevel: 'warning',
})
