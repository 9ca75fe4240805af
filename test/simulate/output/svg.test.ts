// The plot renderer: a Vega-Lite spec becomes an SVG with its titles, and the same spec the same SVG every time.
import {describe, expect, it} from 'vitest'
import {renderSvg} from '../../../src/simulate/output/svg.js'

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
  it('renders a spec to an SVG with its axis title, a line per series and a point per value', async () => {
    const svg = await renderSvg(spec)
    expect(svg).toMatch(/^<svg /)
    expect(svg).toContain('capacity (blocks)')
    expect(svg.match(/aria-roledescription="line mark"/g)).toHaveLength(2)
    expect(svg.match(/aria-roledescription="point"/g)).toHaveLength(40)
  })

  it('renders the same spec to the same SVG', async () => {
    expect(await renderSvg(spec)).toBe(await renderSvg(spec))
  })
})
