// Get+Write JSONL → LMCache storage `.lct` (the calls an inference engine makes), and the key mapping both ways.
import {createHash} from 'node:crypto'
import {renameSync, rmSync} from 'node:fs'
import {lmtError} from '../errors.js'
import {isFsError, outputError, refuseNonRegularOutput} from '../util/output-path.js'
import {LineReader} from '../jsonl/line-reader.js'
import {parseJson} from '../jsonl/parse.js'
import {STORAGE_MANAGER_QUALNAME} from '../lct/constants.js'
import {TraceRecorder} from '../lct/recorder.js'
import {dtypeItemSize} from '../lct/dtypes.js'
import {MemoryLayoutDesc, ObjectKey} from '../lct/values.js'
import type {PyJsonValue} from '../util/pyfmt.js'
import {tempPathBeside} from './stale-temps.js'

/** the longest stretch of encoding without a turn of the event loop */
const TURN_MS = 50

export interface LctBridgeOptions {
  /** ObjectKey.model_name; default: the record's instance id */
  modelName?: string
  kvRank: number
  layout: MemoryLayoutDesc
  /** t_wall of the first record (epoch seconds); default: each record's timestamp */
  tWallStart?: number
  /** the storage config dict for the header (the same flags as `lmt replay`) */
  configDict: PyJsonValue
  /** called after every chunk read: bytes of the JSONL read so far, records written */
  onProgress?(bytesRead: number, records: number): void
}

export interface LctBridgeSummary {
  gets: number
  writes: number
  records: number
  skipped: number
}

/** ObjectKey.chunk_hash of a 64-bit key: its 8 bytes, big-endian, two's complement. */
export function chunkHashOf(key: bigint): Uint8Array {
  const b = Buffer.alloc(8)
  b.writeBigInt64BE(BigInt.asIntN(64, key))
  return b
}

/** The 64-bit key of an ObjectKey: the chunk hash when it has 8 bytes, else the first 8 bytes of SHA-256(id). */
export function keyOfObjectKey(k: ObjectKey): bigint {
  if (k.chunkHash.length === 8) return Buffer.from(k.chunkHash).readBigInt64BE(0)
  return createHash('sha256').update(k.id, 'utf8').digest().readBigInt64BE(0)
}

const DTYPE_SHORT = /^[a-z0-9_]+$/

/**
 * `--kv-layout`: a JSON `{"shapes": [[…]], "dtypes": ["torch.bfloat16"]}`, or the shorthand
 * `2x32x16x8x128:bfloat16[;…]` (one shape per `;`).
 */
export function parseKvLayout(text: string): MemoryLayoutDesc {
  const bad = (why: string) =>
    lmtError('USAGE', `--kv-layout: ${why}`, {
      suggestions: [
        'e.g. --kv-layout 2x36x16x8x128:bfloat16 (K and V, 36 layers, 16 tokens, 8 heads, head size 128)',
      ],
    })
  let shapes: number[][]
  let dtypes: string[]
  if (text.trim().startsWith('{')) {
    let v: {shapes?: unknown; dtypes?: unknown}
    try {
      v = JSON.parse(text)
    } catch (err) {
      throw bad((err as Error).message)
    }
    if (!Array.isArray(v.shapes) || !Array.isArray(v.dtypes)) throw bad('needs "shapes" and "dtypes" arrays')
    shapes = v.shapes as number[][]
    dtypes = v.dtypes as string[]
  } else {
    shapes = []
    dtypes = []
    for (const part of text.split(';')) {
      const [dims, dtype = 'bfloat16'] = part.split(':')
      shapes.push(dims.split('x').map((d) => Number(d)))
      dtypes.push(DTYPE_SHORT.test(dtype) ? `torch.${dtype}` : dtype)
    }
  }
  if (shapes.length === 0 || shapes.length !== dtypes.length)
    throw bad('shapes and dtypes must have the same, non-zero length')
  for (const s of shapes)
    if (!Array.isArray(s) || s.length === 0 || !s.every((d) => Number.isInteger(d) && d > 0))
      throw bad('every dimension must be a positive integer')
  for (const d of dtypes) if (dtypeItemSize(d) === undefined) throw bad(`unknown dtype '${d}'`)
  return new MemoryLayoutDesc(shapes, dtypes)
}

/** `--bytes-per-block N`: a one-dimensional uint8 layout of N bytes. */
export function bytesLayout(n: number): MemoryLayoutDesc {
  return new MemoryLayoutDesc([[n]], ['torch.uint8'])
}

/**
 * Writes the storage `.lct` of a Get+Write JSONL: each get becomes submit_prefetch_task, the read context
 * enter/exit and finish_read_prefetched; each write becomes reserve_write (mode "new") and finish_write. The file is
 * written to a temporary name beside `output` and renamed.
 */
export async function jsonlToLct(
  jsonlPath: string,
  output: string,
  o: LctBridgeOptions,
  /** holds the temporary file while it exists (so that a signal handler can remove it) */
  temps: Set<string> = new Set(),
): Promise<LctBridgeSummary> {
  const tmp = tempPathBeside(output)
  temps.add(tmp)
  let first: bigint | undefined
  let now = 0
  let wall = o.tWallStart ?? 0
  // created at the first record, so that the header's t_wall_start is the first record's wall time
  let recorder: TraceRecorder | undefined
  const open = (): TraceRecorder => {
    if (!recorder) {
      recorder = new TraceRecorder({
        path: tmp,
        capturesCalls: false,
        clock: {mono: () => now, wall: () => wall},
        chunkBytes: 1 << 20, // the file is renamed into place when done: no need for a write per frame
      })
      recorder.attachConfig(o.configDict)
    }
    return recorder
  }
  const summary: LctBridgeSummary = {gets: 0, writes: 0, records: 0, skipped: 0}
  try {
    const reader = new LineReader(jsonlPath, {progress: (b) => o.onProgress?.(b, summary.records)})
    let lines = 0
    let lastTurn = performance.now()
    for await (const line of reader.lines()) {
      // a read batch (1 MiB of lines) takes long to encode: a turn of the event loop now and then lets a signal
      // handler run (Ctrl-C answers within a second)
      if ((++lines & 63) === 0 && performance.now() - lastTurn > TURN_MS) {
        await new Promise((resolve) => setImmediate(resolve))
        lastTurn = performance.now()
      }
      const row = parseJson(line.text)
      if (!(row instanceof Map)) {
        summary.skipped++
        continue
      }
      const ts = row.get('timestamp_ns')
      const keys = row.get('keys')
      const type = row.get('type')
      if (
        (typeof ts !== 'number' && typeof ts !== 'bigint') ||
        !Array.isArray(keys) ||
        (type !== 'get' && type !== 'write')
      ) {
        summary.skipped++
        continue
      }
      const t = BigInt(ts)
      first ??= t
      now = Number(t - first) / 1e9
      wall = o.tWallStart !== undefined ? o.tWallStart + now : Number(t) / 1e9
      const rec = open()
      if (!keys.every((k) => typeof k === 'bigint' || (typeof k === 'number' && Number.isInteger(k)))) {
        summary.skipped++ // keys that are not 64-bit integers have no chunk hash
        continue
      }
      const instance = String(row.get('instance_id') ?? 'instance')
      const objectKeys = keys.map(
        (k) =>
          new ObjectKey(chunkHashOf(BigInt(k as number | bigint)), o.modelName ?? instance, o.kvRank, 0, ''),
      )
      const emit = (op: string, args: Record<string, unknown>) => {
        rec.writeRecord(`${STORAGE_MANAGER_QUALNAME}.${op}`, args, now, wall)
        summary.records++
      }
      if (type === 'get') {
        summary.gets++
        emit('submit_prefetch_task', {
          keys: objectKeys,
          layout_desc: o.layout,
          extra_count: 0,
          external_request_id: String(row.get('trace_id') ?? ''),
        })
        emit('read_prefetched_results.__enter__', {keys: objectKeys})
        emit('read_prefetched_results.__exit__', {keys: objectKeys})
        emit('finish_read_prefetched', {keys: objectKeys, extra_count: 0})
      } else {
        summary.writes++
        emit('reserve_write', {keys: objectKeys, layout_desc: o.layout, mode: 'new'})
        emit('finish_write', {keys: objectKeys})
      }
    }
    const done = open()
    done.close()
    if (done.droppedCount > 0)
      throw lmtError('OUTPUT_FAILED', `${done.droppedCount} records could not be written to ${output}`)
    refuseNonRegularOutput(output) // checked before the work too; a device put there meanwhile stays
    renameSync(tmp, output)
  } catch (err) {
    recorder?.close()
    rmSync(tmp, {force: true})
    throw isFsError(err) ? outputError('OUTPUT_FAILED', `cannot write ${output}`, err) : err
  } finally {
    temps.delete(tmp)
  }
  return summary
}
