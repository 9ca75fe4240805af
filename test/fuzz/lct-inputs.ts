// Seeds and mutations of .lct traces for the fuzz tests: a generated trace with nested args plus the fixtures.
import {MsgpackWriter} from '../../src/formats/lct/msgpack.js'
import {frame} from '../../src/formats/lct/writer.js'
import {fixture, FIXTURE_NAMES, header, recordEntries} from '../formats/lct/helpers.js'
import type {Random} from './random.js'

/** A generated trace: header plus records with nested args, so mutations hit every decoder path. */
export function generatedTrace(rng: Random): Buffer {
  const frames = [header()]
  for (let i = 0; i < 12; i++)
    frames.push(
      recordFrame(
        rng.pick(['a.op', 'b.op', 'é.op']),
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

/** A record frame (floats as float64, like LMCache writes them); `args` may be raw msgpack bytes. */
export function recordFrame(qualname: string, args: unknown, tMono: number, tWall?: number): Buffer {
  const w = new MsgpackWriter()
  const entries = recordEntries(qualname, args instanceof Uint8Array ? 'RAW' : args, tMono).map(
    ([k, v]): [string, unknown] => [k, k === 't_wall' && tWall !== undefined ? tWall : v],
  )
  w.mapHeader(entries.length)
  for (const [k, v] of entries) {
    w.str(k as string)
    if ((k === 't_mono' || k === 't_wall') && typeof v === 'number') w.float64(v)
    else w.value(v)
  }
  const body = Buffer.from(w.bytes())
  if (!(args instanceof Uint8Array)) return frame(body)
  const mark = Buffer.from([0xa3, 0x52, 0x41, 0x57]) // the str "RAW"
  const at = body.lastIndexOf(mark)
  return frame(Buffer.concat([body.subarray(0, at), args, body.subarray(at + mark.length)]))
}

/** The seeds of .lct fuzzing: the generated trace and every fixture that has a readable header. */
export function lctSeeds(rng: Random): Buffer[] {
  return [
    generatedTrace(rng),
    ...FIXTURE_NAMES.filter((n) => !n.startsWith('v0') && n !== 'bad_magic').map((n) => fixture(`${n}.lct`)),
  ]
}

/** Byte flips, 32-bit overwrites and truncation (what test/formats/lct/fuzz.test.ts has always used). */
export function flipAndTruncate(rng: Random, base: Buffer): Buffer {
  const b = Buffer.from(base)
  const kind = rng.next()
  if (kind < 0.3) return b.subarray(0, Math.floor(rng.next() * b.length))
  const flips = 1 + Math.floor(rng.next() * 6)
  for (let i = 0; i < flips; i++) {
    const at = Math.floor(rng.next() * b.length)
    if (rng.next() < 0.2 && b.length >= 4)
      b.writeUInt32BE(Math.floor(rng.next() * 2 ** 32), Math.max(0, Math.min(at, b.length - 4)))
    else b[at] = Math.floor(rng.next() * 256)
  }
  return kind < 0.5 ? b.subarray(0, Math.floor(b.length * (0.5 + rng.next() / 2))) : b
}

/** Nested one-element arrays or maps, `depth` deep, around nil. */
function deepMsgpack(rng: Random, depth: number): Buffer {
  const level = rng.chance(0.5) ? [0x91] : [0x81, 0xa1, 0x6b] // [x] or {"k": x}
  const out = Buffer.alloc(depth * level.length + 1, 0xc0)
  for (let i = 0; i < depth; i++) out.set(level, i * level.length)
  return out
}

const ODD_FLOATS = [NaN, Infinity, -Infinity, -0, 1e308, -1e308, 5e-324, 2 ** 53 + 2, 1e21]

/** A record with hostile content appended to the trace: deep nesting, odd floats, huge strings and arrays. */
function hostileRecord(rng: Random): Buffer {
  const qualname = rng.pick([
    'lmcache.v1.distributed.storage_manager.StorageManager.submit_prefetch_task',
    'lmcache.v1.distributed.storage_manager.StorageManager.finish_write',
    'x.op',
    '',
  ])
  const tMono = rng.chance(0.5) ? rng.pick(ODD_FLOATS) : rng.next()
  const tWall = rng.chance(0.5) ? rng.pick(ODD_FLOATS) : undefined
  switch (rng.int(5)) {
    case 0:
      return recordFrame(qualname, deepMsgpack(rng, rng.pick([63, 64, 65, 1000, 100_000])), tMono)
    case 1:
      // args {"a": <70 levels>}: the args map itself is valid, a value in it is too deep
      return recordFrame(
        qualname,
        Buffer.concat([Buffer.from([0x81, 0xa1, 0x61]), deepMsgpack(rng, 70)]),
        tMono,
      )
    case 2:
      return recordFrame(qualname, {s: 'é'.repeat(rng.int(1 << 16)), n: rng.pick(ODD_FLOATS)}, tMono)
    case 3: {
      // well-formed keys, so that the lmcache_lct converter reaches its timestamp and instance rules
      const key = {
        chunk_hash: Uint8Array.from([1, 2]),
        model_name: rng.pick(['m', '', 'é']),
        kv_rank: rng.int(3),
      }
      return recordFrame(qualname, {keys: [{__t__: 'ObjectKey', v: key}]}, tMono, tWall)
    }
    default:
      return recordFrame(qualname, {keys: Array.from({length: rng.int(5000)}, (_, i) => i)}, tMono)
  }
}

/** A copy of a span of `b` inserted elsewhere (frames cut in the middle, repeated headers, …). */
function duplicateSpan(rng: Random, b: Buffer): Buffer {
  if (b.length < 2) return b
  const from = rng.int(b.length)
  const len = 1 + rng.int(Math.min(b.length - from, 512))
  const at = rng.int(b.length)
  return Buffer.concat([b.subarray(0, at), b.subarray(from, from + len), b.subarray(at)])
}

/** A frame length prefix overwritten with an extreme value (0, 1, just over the rest, 2^32 − 1). */
function corruptLength(rng: Random, b: Buffer): Buffer {
  const out = Buffer.from(b)
  if (out.length < 8) return out
  const at = rng.int(out.length - 4)
  out.writeUInt32BE(rng.pick([0, 1, 4, out.length - at, out.length - at + 1, 0xffffffff, 0x7fffffff]), at)
  return out
}

/** One mutated .lct file from `base`: one to three mutations of every kind above. */
export function mutateLct(rng: Random, base: Buffer): Buffer {
  let b = base
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const kind = rng.int(10)
    if (kind < 4) b = flipAndTruncate(rng, b)
    else if (kind < 6) b = Buffer.concat([b, hostileRecord(rng)])
    else if (kind < 8) b = duplicateSpan(rng, b)
    else b = corruptLength(rng, b)
  }
  return b
}
