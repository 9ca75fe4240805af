// The bundled renderer the build makes is the same renderer: same SVG as vega and vega-lite loaded as packages,
// with or without its code cache; and the cache is one that a process takes.
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {renderSvg as fromPackages} from '../../src/vendor/vega-render.js'
import {renderSvg} from '../../src/vendor/vega.js'

const DIST = (p: string): string => fileURLToPath(new URL(`../../dist/src/${p}`, import.meta.url))
const BUNDLE = DIST('vendor/vega-render.bundle.cjs')
const BUNDLE_CACHE = DIST('vendor/vega-render.bundle.cache')

const spec = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  width: 320,
  height: 160,
  data: {
    values: Array.from({length: 40}, (_, i) => ({x: i * 1000, y: (i % 7) / 7, s: i % 2 ? 'a' : 'b'})),
  },
  mark: {type: 'line', point: true},
  encoding: {
    x: {field: 'x', type: 'quantitative', title: 'capacity (blocks)', scale: {type: 'log'}},
    y: {field: 'y', type: 'quantitative', axis: {format: '.0%'}},
    color: {field: 's', type: 'nominal'},
  },
}

type Bundle = typeof import('../../src/vendor/vega-bundle.js')
const bundleModule = async (): Promise<Bundle> => (await import(DIST('vendor/vega-bundle.js'))) as Bundle

describe('the plot renderer', () => {
  it('the build bundles it, with a code cache', () => {
    expect(existsSync(BUNDLE)).toBe(true)
    expect(existsSync(BUNDLE_CACHE)).toBe(true)
  })

  it('renders the same SVG from the bundle as from the packages, with and without the cache', async () => {
    const {loadBundle} = await bundleModule()
    const plain = await loadBundle(BUNDLE).renderer.renderSvg(spec)
    expect(plain).toMatch(/^<svg /)
    expect(plain).toContain('capacity (blocks)')
    expect(plain).toBe(await fromPackages(spec))
    const cached = await loadBundle(BUNDLE, readFileSync(BUNDLE_CACHE)).renderer.renderSvg(spec)
    expect(cached).toBe(plain)
  })

  it('the cache is taken', () => {
    const program = `
      const {loadBundle} = await import(${JSON.stringify(DIST('vendor/vega-bundle.js'))})
      const {readFileSync} = await import('node:fs')
      const {script} = loadBundle(${JSON.stringify(BUNDLE)}, readFileSync(${JSON.stringify(BUNDLE_CACHE)}))
      process.stdout.write(String(script.cachedDataRejected))`
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', program], {encoding: 'utf8'})).toBe(
      'false',
    )
  })

  it('renderSvg renders through whichever is there', async () => {
    expect(await renderSvg(spec)).toBe(await fromPackages(spec))
  })
})
