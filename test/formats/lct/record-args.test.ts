import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {decodeArgs} from '../../../src/formats/lct/codecs.js'
import {openTrace} from '../../../src/formats/lct/reader.js'
import {fastDecoding} from '../../../src/formats/lct/fast/index.js'
import {recordArgs} from '../../../src/formats/lct/record-args.js'
import type {LctRecord} from '../../../src/formats/lct/types.js'
import {ObjectKey} from '../../../src/formats/lct/values.js'
import {LCT} from './helpers.js'

// the fixtures with a readable header; v2_all_codec_shapes holds every wrapper the codecs know
const NAMES = ['v1_reserve_finish', 'v2_full_prefetch_cycle', 'v2_truncated_tail', 'v2_all_codec_shapes']

/** Decoded values as comparable data: keys by identity, value classes by name and fields. */
function norm(v: unknown): unknown {
  if (v instanceof ObjectKey) return `ObjectKey ${v.id}`
  if (v instanceof Uint8Array) return `bytes ${Buffer.from(v).toString('hex')}`
  if (typeof v === 'bigint') return `${v}n`
  if (Array.isArray(v)) return v.map(norm)
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {class: (v as object).constructor?.name ?? 'map'}
    for (const [k, x] of Object.entries(v)) out[`.${k}`] = norm(x)
    return out
  }
  return v
}

async function plainArgs(file: string): Promise<unknown[]> {
  const out: unknown[] = []
  for await (const r of await openTrace(file)) out.push(norm(decodeArgs(r.args)))
  return out
}

describe('recordArgs: one way to a record’s decoded arguments, whichever reader ran', () => {
  it('gives what the plain reader and decodeArgs give, for the interning reader too', async () => {
    for (const name of NAMES) {
      const file = join(LCT, `${name}.lct`)
      const plain = await plainArgs(file)
      const interned: unknown[] = []
      for await (const r of await openTrace(file, {decoding: fastDecoding}))
        interned.push(norm(recordArgs(r)))
      expect(interned, name).toEqual(plain)
      expect(plain.length, name).toBeGreaterThan(0)
    }
  })

  it('decodes once: a second call returns the same map; the record shows no reader-specific field', async () => {
    const file = join(LCT, 'v2_all_codec_shapes.lct')
    const records: LctRecord[] = []
    for await (const r of await openTrace(file)) records.push(r)
    for (const r of records) {
      expect(Object.keys(r).sort()).toEqual([
        'args',
        'index',
        'length',
        'offset',
        'qualname',
        'tMono',
        'tWall',
      ])
      const first = recordArgs(r)
      expect(recordArgs(r)).toBe(first)
      expect(r.args).toBe(first)
    }
  })
})
