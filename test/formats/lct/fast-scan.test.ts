import {isUtf8} from 'node:buffer'
import {describe, expect, it} from 'vitest'
import {fastScanRecord, type ScannedRecord, skipValid} from '../../../src/formats/lct/fast/fast-scan.js'
import {decodeRecordBody} from '../../../src/formats/lct/frame-decode.js'
import {MsgpackReader} from '../../../src/formats/lct/msgpack.js'
import {fixture, FIXTURE_NAMES, record} from './helpers.js'
import {itSlow} from '../../helpers/slow.js'

let seed = 7
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647

/** Bodies of every record frame of a trace file (after the header). */
function recordBodies(file: Buffer): Buffer[] {
  const out: Buffer[] = []
  let pos = 4 + file.readUInt32BE(0)
  while (pos + 4 <= file.length) {
    const n = file.readUInt32BE(pos)
    if (pos + 4 + n > file.length) break
    out.push(file.subarray(pos + 4, pos + 4 + n))
    pos += 4 + n
  }
  return out
}

function exactSkip(body: Uint8Array): number | 'error' {
  const r = new MsgpackReader(body, 0, body.length)
  try {
    r.value()
    return r.pos
  } catch {
    return 'error'
  }
}

function exactScan(body: Uint8Array): {tMono: number; qualname: string} | string {
  try {
    const {tMono, qualname} = decodeRecordBody(body, 0, body.length)
    return {tMono, qualname}
  } catch (err) {
    return 'error: ' + (err as Error).message
  }
}

function mutated(body: Buffer): Buffer {
  const b = Buffer.from(body)
  for (let i = 1 + Math.floor(rand() * 3); i > 0; i--)
    b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256)
  return rand() < 0.3 ? b.subarray(0, Math.floor(rand() * b.length)) : b
}

const bodies = [
  ...FIXTURE_NAMES.filter((n) => !n.startsWith('v0') && n !== 'bad_magic').flatMap((n) =>
    recordBodies(fixture(`${n}.lct`)),
  ),
  ...[0, 1, 2].map((i) =>
    record(
      'é.op',
      {keys: [{__t__: 'ObjectKey', v: {chunk_hash: Uint8Array.from([i])}}], s: 'ü'.repeat(i)},
      i,
    ).subarray(4),
  ),
]

describe('the counting fast lane', () => {
  it('takes the usual records itself and agrees with the exact scan', () => {
    const out: ScannedRecord = {tMono: -1, qualnameStart: 0, qualnameLength: 0}
    let taken = 0
    for (const body of bodies) {
      if (!fastScanRecord(body, 0, body.length, out)) continue
      taken++
      const exact = exactScan(body)
      expect(typeof exact === 'string' ? exact : 'ok').toBe('ok')
      const name = body.subarray(out.qualnameStart, out.qualnameStart + out.qualnameLength).toString('utf8')
      expect({tMono: out.tMono, qualname: name}).toEqual(exact)
    }
    expect(taken).toBeGreaterThan(bodies.length / 2) // the fixtures' records are the usual shape
  })

  itSlow('never accepts what the exact path rejects (20,000 mutated records)', () => {
    const out: ScannedRecord = {tMono: 0, qualnameStart: 0, qualnameLength: 0}
    let accepted = 0
    let rejected = 0
    for (let i = 0; i < 20_000; i++) {
      const body = mutated(bodies[Math.floor(rand() * bodies.length)])
      const end = skipValid(body, 0, body.length, 0)
      if (end >= 0) expect(exactSkip(body)).toBe(end)
      // the caller validates the qualname's UTF-8 when it first meets the name (QualnameCounter)
      const name = (): Uint8Array => body.subarray(out.qualnameStart, out.qualnameStart + out.qualnameLength)
      if (fastScanRecord(body, 0, body.length, out) && isUtf8(name())) {
        accepted++
        const exact = exactScan(body)
        expect(typeof exact === 'string' ? exact : 'ok').toBe('ok')
        if (typeof exact !== 'string') expect(out.tMono).toBe(exact.tMono)
      } else if (typeof exactScan(body) === 'string') rejected++
    }
    expect(accepted).toBeGreaterThan(100)
    expect(rejected).toBeGreaterThan(100)
  })

  it('gives up on nesting beyond the limit, like the exact path', () => {
    const deep = Buffer.alloc(70, 0x91) // 70 nested one-element arrays …
    const body = Buffer.concat([deep, Buffer.from([0x01])])
    expect(skipValid(body, 0, body.length, 0)).toBe(-1)
    expect(exactSkip(body)).toBe('error')
    const ok = Buffer.concat([Buffer.alloc(10, 0x91), Buffer.from([0x01])])
    expect(skipValid(ok, 0, ok.length, 0)).toBe(ok.length)
  })
})
