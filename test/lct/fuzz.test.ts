import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {LctError} from '../../src/errors.js'
import {countTrace, openTrace} from '../../src/lct/reader.js'
import {flipAndTruncate, lctSeeds} from '../fuzz/lct-inputs.js'
import {Random} from '../fuzz/random.js'
import {itSlow} from '../helpers/slow.js'

// the inputs come from the fuzz suite's generators (test/fuzz), which also drive `npm run fuzz`
const rng = new Random(20261129)
const mutate = (base: Buffer) => flipAndTruncate(rng, base)

async function full(bytes: Buffer) {
  try {
    const r = await openTrace(Readable.from([bytes]), {maxFrameBytes: 4096})
    const byQualname = new Map<string, number>()
    let maxTMono = 0
    for await (const x of r) {
      byQualname.set(x.qualname, (byQualname.get(x.qualname) ?? 0) + 1)
      if (x.tMono > maxTMono) maxTMono = x.tMono
    }
    return {
      ok: true as const,
      totalRecords: r.state.records,
      byQualname,
      maxTMono,
      framesSkipped: r.state.framesSkipped,
      truncated: r.state.truncated,
      warnings: r.state.warnings,
    }
  } catch (err) {
    if (!(err instanceof LctError)) throw err
    return {ok: false as const, code: err.code, message: err.message}
  }
}

async function fast(bytes: Buffer) {
  try {
    const c = await countTrace(Readable.from([bytes]), {maxFrameBytes: 4096})
    return {
      ok: true as const,
      totalRecords: c.totalRecords,
      byQualname: c.byQualname,
      maxTMono: c.maxTMono,
      framesSkipped: c.framesSkipped,
      truncated: c.truncated,
      warnings: c.warnings,
    }
  } catch (err) {
    if (!(err instanceof LctError)) throw err
    return {ok: false as const, code: err.code, message: err.message}
  }
}

describe('fuzzing the reader', () => {
  const bases = lctSeeds(rng)

  itSlow(
    '10,000 mutated and truncated files give only coded errors or warnings, and the fast path agrees',
    async () => {
      let errors = 0
      let warned = 0
      for (let i = 0; i < 10_000; i++) {
        const bytes = mutate(rng.pick(bases))
        const a = await full(bytes)
        if (i % 5 === 0) expect(await fast(bytes)).toEqual(a) // 2,000 equality checks
        if (!a.ok) errors++
        else if (a.warnings.length > 0) warned++
      }
      // both outcomes are exercised
      expect(errors).toBeGreaterThan(100)
      expect(warned).toBeGreaterThan(100)
    },
    120_000,
  )

  it('fast and full paths agree on every fixture', async () => {
    for (const b of bases) expect(await fast(b)).toEqual(await full(b))
  })
})
