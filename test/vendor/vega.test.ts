// The bundled renderer the build makes is the same renderer: same SVG as vega and vega-lite loaded as packages.
import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {renderSvg as fromPackages} from '../../src/vendor/vega-render.js'
import {renderSvg} from '../../src/vendor/vega.js'

const DIST = (p: string): string => fileURLToPath(new URL(`../../dist/src/${p}`, import.meta.url))
const BUNDLE = DIST('vendor/vega-render.bundle.cjs')

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

describe('the plot renderer', () => {
  it('the build bundles it', () => {
    expect(existsSync(BUNDLE)).toBe(true)
  })

  it('renders the same SVG from the bundle as from the packages', async () => {
    const bundled = createRequire(import.meta.url)(BUNDLE) as typeof import('../../src/vendor/vega-render.js')
    const svg = await bundled.renderSvg(spec)
    expect(svg).toMatch(/^<svg /)
    expect(svg).toContain('capacity (blocks)')
    expect(svg).toBe(await fromPackages(spec))
  })

  it('renderSvg renders through whichever is there', async () => {
    expect(await renderSvg(spec)).toBe(await fromPackages(spec))
  })
})
