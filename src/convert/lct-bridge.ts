// Get+Write JSONL → LMCache storage `.lct` (the calls an inference engine makes), and the key mapping both ways
// (docs/lct-bridge.md).
import {createHash} from 'node:crypto'
import {renameSync, rmSync} from 'node:fs'
import {lmtError} from '../errors.js'
import {isFsError, outputError, refuseNonRegularOutput} from '../util/output-path.js'
import {LineReader} from '../formats/json/line-reader.js'
import {parseJson} from '../formats/json/parse.js'
import {STORAGE_MANAGER_QUALNAME} from '../formats/lct/constants.js'
import {TraceRecorder} from '../formats/lct/recorder.js'
import {type MemoryLayoutDesc, ObjectKey} from '../formats/lct/values.js'
import type {JsonObject} from '../formats/json/json-float.js'
import type {PyJsonValue} from '../formats/json/py-json.js'
import {tempPathBeside} from '../util/atomic-write.js'
import {eventLoopTurn} from '../util/event-loop-turn.js'

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

/** A trace row's fields the bridge uses, or undefined when the line is not a get or write it can map. */
function traceRow(
  text: string,
): {ts: bigint; keys: unknown[]; type: 'get' | 'write'; row: JsonObject} | undefined {
  const row = parseJson(text)
  if (!(row instanceof Map)) return undefined
  const ts = row.get('timestamp_ns')
  const keys = row.get('keys')
  const type = row.get('type')
  if (
    (typeof ts !== 'number' && typeof ts !== 'bigint') ||
    !Array.isArray(keys) ||
    (type !== 'get' && type !== 'write')
  )
    return undefined
  return {ts: BigInt(ts), keys, type, row}
}

/**
 * Writes the storage `.lct` of a Get+Write JSONL: each get becomes submit_prefetch_task, the read context
 * enter/exit and finish_read_prefetched; each write becomes reserve_write (mode "new") and finish_write. The
 * recorder's clock follows the rows: monotonic time from the first row, wall time from `tWallStart` or each row's
 * own timestamp. The file is written to a temporary name beside `output` and renamed.
 */
export async function jsonlToLct(
  jsonlPath: string,
  output: string,
  o: LctBridgeOptions,
  /** holds the temporary file while it exists (so that a signal handler can remove it) */
  temps: Set<string> = new Set(),
) {
  const tmp = tempPathBeside(output)
  temps.add(tmp)
  const summary = {gets: 0, writes: 0, records: 0, skipped: 0}
  let first: bigint | undefined
  let now = 0
  let wall = o.tWallStart ?? 0
  // made at the first record, so that the header's t_wall_start is the first record's wall time
  let recorder: TraceRecorder | undefined
  const open = (): TraceRecorder => {
    if (!recorder) {
      recorder = new TraceRecorder({
        path: tmp,
        capturesCalls: false,
        exclusive: true,
        clock: {mono: () => now, wall: () => wall},
        chunkBytes: 1 << 20, // the file is renamed into place when done: no need for a write per frame
      })
      recorder.attachConfig(o.configDict)
    }
    return recorder
  }
  const emit = (op: string, args: Record<string, unknown>): void => {
    open().writeRecord(`${STORAGE_MANAGER_QUALNAME}.${op}`, args, now, wall)
    summary.records++
  }
  /** One JSONL line: a get's four calls, a write's two, or a skip. */
  const add = (text: string): void => {
    const r = traceRow(text)
    if (r === undefined) {
      summary.skipped++
      return
    }
    first ??= r.ts
    now = Number(r.ts - first) / 1e9
    wall = o.tWallStart !== undefined ? o.tWallStart + now : Number(r.ts) / 1e9
    open()
    if (!r.keys.every((k) => typeof k === 'bigint' || (typeof k === 'number' && Number.isInteger(k)))) {
      summary.skipped++ // keys that are not 64-bit integers have no chunk hash
      return
    }
    const instance = String(r.row.get('instance_id') ?? 'instance')
    const keys = r.keys.map(
      (k) =>
        new ObjectKey(chunkHashOf(BigInt(k as number | bigint)), o.modelName ?? instance, o.kvRank, 0, ''),
    )
    if (r.type === 'get') {
      summary.gets++
      const id = String(r.row.get('trace_id') ?? '')
      emit('submit_prefetch_task', {keys, layout_desc: o.layout, extra_count: 0, external_request_id: id})
      emit('read_prefetched_results.__enter__', {keys})
      emit('read_prefetched_results.__exit__', {keys})
      emit('finish_read_prefetched', {keys, extra_count: 0})
    } else {
      summary.writes++
      emit('reserve_write', {keys, layout_desc: o.layout, mode: 'new'})
      emit('finish_write', {keys})
    }
  }
  try {
    const reader = new LineReader(jsonlPath, {progress: (b) => o.onProgress?.(b, summary.records)})
    let lines = 0
    let lastTurn = performance.now()
    for await (const line of reader.lines()) {
      // a read batch (1 MiB of lines) takes long to encode: a turn of the event loop now and then lets a signal
      // handler run (Ctrl-C answers within a second)
      if ((++lines & 63) === 0 && performance.now() - lastTurn > TURN_MS) {
        await eventLoopTurn()
        lastTurn = performance.now()
      }
      add(line.text)
    }
    const done = open()
    done.close()
    if (done.droppedCount > 0) throw lmtError('CONVERT_RECORDS_DROPPED', done.droppedCount, output)
    refuseNonRegularOutput(output) // checked before the work too; a device put there meanwhile stays
    renameSync(tmp, output)
  } catch (err) {
    recorder?.close()
    rmSync(tmp, {force: true})
    throw isFsError(err) ? outputError('CONVERT_OUTPUT_FAILED', `cannot write ${output}`, err) : err
  } finally {
    temps.delete(tmp)
  }
  return summary
}
