// A synthetic LMCache lookup-hash log of a given size, in LMCache's writer's format and rotation names: lookups of
// conversations that share a system prompt and grow turn by turn, so keys repeat across lookups and the distinct
// keys stay bounded (memory of a replay must not grow with the log's length).
import {mkdirSync, openSync, closeSync, writeSync} from 'node:fs'
import {join} from 'node:path'

/** xorshift32 */
function rng(seed) {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 2 ** 32
  }
}

/** A 32-byte hash as LMCache writes it: `0x` and 64 hex digits, a function of (conversation, chunk). */
function hashOf(conv, chunk) {
  let h = (Math.imul(conv + 1, 0x9e3779b1) ^ Math.imul(chunk + 7, 0x85ebca6b)) >>> 0
  let out = '0x'
  for (let i = 0; i < 8; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0
    h = (h ^ (h >>> 12) ^ i) >>> 0
    out += h.toString(16).padStart(8, '0')
  }
  return out
}

/**
 * Writes `lookup_hashes_*.jsonl` files of at most `fileBytes` each into `dir` until `totalBytes` are written.
 * Returns the lookups and bytes written.
 */
export function writeLookupLog(
  dir,
  totalBytes,
  {seed = 7, conversations = 4000, fileBytes = 100 << 20} = {},
) {
  mkdirSync(dir, {recursive: true})
  const rand = rng(seed)
  const chunk = 256
  const system = 4 // chunks of the shared system prompt
  const turns = new Int32Array(conversations)
  let written = 0
  let lookups = 0
  let fileNo = 0
  let fd = -1
  let inFile = 0
  let t = 1760000000
  let buf = []
  let bufBytes = 0
  const flush = () => {
    if (bufBytes === 0) return
    writeSync(fd, buf.join(''))
    buf = []
    bufBytes = 0
  }
  while (written < totalBytes) {
    if (fd < 0 || inFile >= fileBytes) {
      if (fd >= 0) {
        flush()
        closeSync(fd)
      }
      const name = `lookup_hashes_20251009_0000${String(fileNo).padStart(2, '0')}_${String(fileNo).padStart(6, '0')}.jsonl`
      fd = openSync(join(dir, name), 'w')
      fileNo++
      inFile = 0
    }
    const conv = Math.floor(rand() * conversations)
    const turn = (turns[conv] = (turns[conv] + 1) % 24)
    const chunks = system + 2 * turn + Math.floor(rand() * 3)
    const hashes = []
    for (let i = 0; i < chunks; i++) hashes.push(`"${hashOf(i < system ? -1 : conv, i)}"`)
    t += rand() * 0.05
    const line =
      `{"timestamp": ${t}, "request_id": "cmpl-${lookups}-0", "model_name": "meta-llama/Llama-3.1-8B-Instruct", ` +
      `"chunk_size": ${chunk}, "seq_len": ${chunks * chunk + Math.floor(rand() * chunk)}, "dtypes": ["torch.bfloat16"], ` +
      `"shapes": [[2, 32, ${chunk}, 1024]], "chunk_hashes": [${hashes.join(', ')}]}\n`
    buf.push(line)
    bufBytes += line.length
    inFile += line.length
    written += line.length
    lookups++
    if (bufBytes > 1 << 20) flush()
  }
  flush()
  closeSync(fd)
  return {lookups, bytes: written, files: fileNo}
}
