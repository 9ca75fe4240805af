import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {LctError} from '../../../src/errors.js'
import {countTrace, openTrace} from '../../../src/formats/lct/reader.js'
import {fastDecoding} from '../../../src/formats/lct/fast/index.js'
import {plainDecoding} from '../../../src/formats/lct/record-decoding.js'
import type {RecordDecoding} from '../../../src/formats/lct/types.js'
import {recordArgs} from '../../../src/formats/lct/record-args.js'
import {readable} from '../../../src/formats/lct/readable.js'
import {flipAndTruncate, lctSeeds} from '../../fuzz/lct-inputs.js'
import {Random} from '../../fuzz/random.js'
import {itSlow} from '../../helpers/slow.js'

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

/** the count-only pass, accelerated (default) or plain */
async function fast(bytes: Buffer, decoding: RecordDecoding = fastDecoding) {
  try {
    const c = await countTrace(Readable.from([bytes]), {maxFrameBytes: 4096, decoding})
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

/** Every record's fields and decoded arguments (or the decoding's error), read with `decoding`. */
async function decoded(bytes: Buffer, decoding: RecordDecoding) {
  try {
    const out: unknown[] = []
    for await (const r of await openTrace(Readable.from([bytes]), {maxFrameBytes: 4096, decoding})) {
      let args: unknown
      try {
        args = readable(recordArgs(r), true)
      } catch (err) {
        args = `error: ${(err as Error).message}`
      }
      out.push([r.index, r.offset, r.qualname, r.tMono, r.tWall, args])
    }
    return out
  } catch (err) {
    if (!(err instanceof LctError)) throw err
    return err.message
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
        if (i % 5 === 1) expect(await fast(bytes, plainDecoding)).toEqual(a)
        // the interning reader against the plain one, arguments and their errors included
        if (i % 5 === 2)
          expect(await decoded(bytes, fastDecoding)).toEqual(await decoded(bytes, plainDecoding))
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
    for (const b of bases) {
      const expected = await full(b)
      expect(await fast(b)).toEqual(expected)
      expect(await fast(b, plainDecoding)).toEqual(expected)
      expect(await decoded(b, fastDecoding)).toEqual(await decoded(b, plainDecoding))
    }
  })
})
