// Deterministic synthetic inputs for the benchmarks (seeded; the same files on every machine).
import {createWriteStream} from 'node:fs'
import {once} from 'node:events'

/** mulberry32: a small seeded PRNG */
export function rng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function writeLines(path, count, lineAt) {
  const out = createWriteStream(path, {highWaterMark: 1 << 20})
  let buf = ''
  for (let i = 0; i < count; i++) {
    buf += lineAt(i) + '\n'
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain')
      buf = ''
    }
  }
  out.write(buf)
  out.end()
  await once(out, 'finish')
}

/**
 * Qwen-Bailian-shaped rows: Poisson arrivals (float seconds, 3 decimals, non-decreasing, with duplicates),
 * input_length = 62·16 − r, 62 hash_ids sharing prefixes through a pool of "conversations".
 */
export function qwenRows(count, seed = 42, idsPerRow = 62) {
  const rand = rng(seed)
  const prefixes = []
  let nextId = 0
  let t = 1_700_000_000
  const rows = new Array(count)
  for (let i = 0; i < count; i++) {
    t += -Math.log(1 - rand()) * 0.02
    let ids
    if (prefixes.length > 0 && rand() < 0.8) {
      const base = prefixes[Math.floor(rand() * prefixes.length)]
      const keep = Math.min(base.length, 8 + Math.floor(rand() * 50))
      ids = base.slice(0, keep)
    } else ids = []
    while (ids.length < idsPerRow) ids.push(nextId++)
    if (prefixes.length < 2000) prefixes.push(ids)
    else prefixes[Math.floor(rand() * prefixes.length)] = ids
    const r = Math.floor(rand() * 16)
    rows[i] = {
      timestamp: Math.round(t * 1000) / 1000,
      input_length: idsPerRow * 16 - r,
      output_length: 100 + Math.floor(rand() * 400),
      hash_ids: ids,
    }
  }
  return rows
}

function qwenLine(row) {
  const ts = Number.isInteger(row.timestamp) ? row.timestamp.toFixed(1) : String(row.timestamp)
  return `{"chat_id": 1, "parent_chat_id": -1, "timestamp": ${ts}, "input_length": ${row.input_length}, "output_length": ${row.output_length}, "type": "text", "turn": 1, "hash_ids": [${row.hash_ids.join(', ')}]}`
}

export async function writeQwen(path, count, {seed = 42, shuffle = false} = {}) {
  const rows = qwenRows(count, seed)
  if (shuffle) {
    const rand = rng(seed + 1)
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1))
      ;[rows[i], rows[j]] = [rows[j], rows[i]]
    }
  }
  await writeLines(path, rows.length, (i) => qwenLine(rows[i]))
}

/** Streaming variant for very large sorted inputs (rows generated on the fly, bounded memory). */
export async function writeQwenStream(path, count, seed = 42) {
  const chunk = 100_000
  const out = createWriteStream(path, {highWaterMark: 1 << 20})
  let t0 = 0
  for (let start = 0; start < count; start += chunk) {
    const rows = qwenRows(Math.min(chunk, count - start), seed + start)
    let buf = ''
    for (const row of rows) {
      const shifted = {
        ...row,
        timestamp: Math.round((row.timestamp - 1_700_000_000 + t0) * 1000) / 1000 + 1_700_000_000,
      }
      buf += qwenLine(shifted) + '\n'
      if (buf.length > 1 << 20) {
        if (!out.write(buf)) await once(out, 'drain')
        buf = ''
      }
    }
    t0 += rows[rows.length - 1].timestamp - 1_700_000_000 + 0.001
    out.write(buf)
  }
  out.end()
  await once(out, 'finish')
}

/**
 * A KVCM event-publisher log: 4 instances, Get/Start/Finish triples in time order with overlapping sessions,
 * some writes never finished and some that match no get.
 */
export async function writePublisher(path, lines, seed = 7) {
  const rand = rng(seed)
  const out = []
  let t = 1_763_975_741_000_000
  let session = 0
  const open = []
  const instances = [
    '3780643326877293460',
    '3780643326877293461',
    '3780643326877293462',
    '3780643326877293463',
  ]
  const key = () =>
    BigInt.asIntN(
      64,
      BigInt(Math.floor(rand() * 2 ** 32)) * 4294967296n + BigInt(Math.floor(rand() * 2 ** 32)),
    ).toString()
  while (out.length < lines) {
    t += Math.floor(rand() * 2000)
    const r = rand()
    if (open.length > 0 && (r < 0.3 || open.length > 64)) {
      const s = open.splice(Math.floor(rand() * open.length), 1)[0]
      if (rand() < 0.97)
        out.push(
          `{"id":"f${s.id}","source":"${s.src}","component":"cache_manager","type":"FinishWriteCache","trigger_time_us":${t},"write_session_id":"ws${s.id}","success_block":${s.keys.length}}`,
        )
      continue
    }
    const src = instances[Math.floor(rand() * instances.length)]
    const n = 4 + Math.floor(rand() * 28)
    const keys = Array.from({length: n}, key)
    out.push(
      `{"id":"g${session}","source":"${src}","component":"cache_manager","type":"GetCacheLocation","trigger_time_us":${t},"query_type":"prefix_match","keys":[${keys.join(',')}],"tokens":[],"block_mask":1,"sw_size":-1,"location_spec_names":[]}`,
    )
    t += 1 + Math.floor(rand() * 500)
    const writeKeys = rand() < 0.95 ? [...keys, key(), key()] : [key(), ...keys]
    out.push(
      `{"id":"s${session}","source":"${src}","component":"cache_manager","type":"StartWriteCache","trigger_time_us":${t},"write_session_id":"ws${session}","keys":[${writeKeys.join(',')}],"tokens":[],"location_spec_group_names":[],"write_timeout_seconds":1800}`,
    )
    open.push({id: session, src, keys: writeKeys})
    session++
  }
  out.length = lines
  await writeLines(path, out.length, (i) => out[i])
}
