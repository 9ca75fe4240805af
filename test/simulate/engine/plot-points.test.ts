import {describe, expect, it} from 'vitest'
import {InstState} from '../../../src/simulate/engine/player.js'

const state = (): InstState => new InstState({} as never, {} as never, {} as never, 0)

describe('the hit-rate-over-time plot data of an instance (docs/simulate.md §5.6: decimated)', () => {
  it.each([1, 2, 1999, 2000, 2001, 4000, 4001, 10_000, 123_457])(
    '%i reads: every 2^k-th read from the first, at most 2,000 of them, then the last read',
    (n) => {
      const s = state()
      for (let r = 0; r < n; r++) s.addPlotPoint(BigInt(r) * 10n, r / n)
      const pts = s.plotPoints()
      const kept = s.plot.map((p) => p.read)
      expect(kept.length).toBeLessThan(2000)
      const step = kept.length > 1 ? kept[1] - kept[0] : 1
      expect(Math.log2(step) % 1).toBe(0)
      expect(kept).toEqual(Array.from({length: kept.length}, (_, i) => i * step))
      expect(kept[kept.length - 1] + step).toBeGreaterThanOrEqual(n) // none missing at the end
      const last = pts[pts.length - 1]
      expect(last).toEqual({ts: BigInt(n - 1) * 10n, accHitRate: (n - 1) / n, read: n - 1})
      expect(pts.length).toBe(kept.includes(n - 1) ? kept.length : kept.length + 1)
      for (const p of pts) expect(p).toEqual({ts: BigInt(p.read) * 10n, accHitRate: p.read / n, read: p.read})
    },
  )

  it('no reads: no points', () => {
    expect(state().plotPoints()).toEqual([])
  })
})
