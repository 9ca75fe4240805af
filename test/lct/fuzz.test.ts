import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {LctError} from '../../src/errors.js'
import {countTrace, openTrace} from '../../src/lct/reader.js'
import {fixture, FIXTURE_NAMES, header, record} from './helpers.js'

let seed = 20261129
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]

/** A generated trace: header plus records with nested args, so mutations hit every decoder path. */
function generated(): Buffer {
  const frames = [header()]
  for (let i = 0; i < 12; i++)
    frames.push(
      record(
        pick(['a.op', 'b.op', 'é.op']),
        {
          keys: [{__t__: 'ObjectKey', v: {chunk_hash: Uint8Array.from([i]), model_name: 'm', kv_rank: 0}}],
          n: i * 1000,
          s: 'x'.repeat(i * 7),
        },
        i * 0.1,
      ),
    )
  return Buffer.concat(frames)
}

function mutate(base: Buffer): Buffer {
  const b = Buffer.from(base)
  const kind = rand()
  if (kind < 0.3) return b.subarray(0, Math.floor(rand() * b.length))
  const flips = 1 + Math.floor(rand() * 6)
  for (let i = 0; i < flips; i++) {
    const at = Math.floor(rand() * b.length)
    if (rand() < 0.2) b.writeUInt32BE(Math.floor(rand() * 2 ** 32), Math.max(0, Math.min(at, b.length - 4)))
    else b[at] = Math.floor(rand() * 256)
  }
  return kind < 0.5 ? b.subarray(0, Math.floor(b.length * (0.5 + rand() / 2))) : b
}

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
  const bases = [
    generated(),
    ...FIXTURE_NAMES.filter((n) => !n.startsWith('v0') && n !== 'bad_magic').map((n) => fixture(`${n}.lct`)),
  ]

  it('10,000 mutated and truncated files give only coded errors or warnings, and the fast path agrees', async () => {
    let errors = 0
    let warned = 0
    for (let i = 0; i < 10_000; i++) {
      const bytes = mutate(pick(bases))
      const a = await full(bytes)
      if (i % 5 === 0) expect(await fast(bytes)).toEqual(a) // 2,000 equality checks
      if (!a.ok) errors++
      else if (a.warnings.length > 0) warned++
    }
    // both outcomes are exercised
    expect(errors).toBeGreaterThan(100)
    expect(warned).toBeGreaterThan(100)
  }, 120_000)

  it('fast and full paths agree on every fixture', async () => {
    for (const b of bases) expect(await fast(b)).toEqual(await full(b))
  })
})
