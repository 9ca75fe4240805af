import {closeSync, fsyncSync, openSync, writeSync} from 'node:fs'
import {createHash} from 'node:crypto'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {type PyJsonValue, pyJsonDumps} from '../json/py-json.js'
import {setActiveRecorder, setTracingEnabled, type CallSink} from './capture.js'
import {CodecError, encodeArgs} from './codecs.js'
import {LCT_FORMAT_VERSION, LCT_MAGIC, LCT_WRITE_SCHEMA_VERSION} from './constants.js'
import {MsgpackEncodeError, type RawValue} from './msgpack.js'
import {encodeHeaderBody, encodeRecordBody, frame} from './writer.js'

export interface Clock {
  /** monotonic seconds */
  mono(): number
  /** Unix epoch seconds */
  wall(): number
}

export const processClock: Clock = {
  mono: () => performance.now() / 1000,
  wall: () => (performance.timeOrigin + performance.now()) / 1000,
}

export interface TraceRecorderOptions {
  path?: string
  level?: string
  levelMeta?: Record<string, RawValue>
  /** default true: becomes the active recorder and turns the gate on */
  capturesCalls?: boolean
  clock?: Clock
  /** receives warnings (dropped records, fsync failures); default: ignored */
  onWarning?: (message: string) => void
  /** the write call (one per frame); default fs.writeSync — injectable for tests */
  write?: (fd: number, bytes: Buffer) => void
  /**
   * Ours: collect frames and write them in chunks of about this many bytes. For files produced in one go and
   * renamed into place (`convert --mode lct`); the default, one write per frame, is LMCache's crash behaviour.
   */
  chunkBytes?: number
  /**
   * Ours: create the file exclusively (O_EXCL: fails when anything, a link included, is at `path`), for a temporary
   * file under a fresh name that must never be a file or link someone put there.
   */
  exclusive?: boolean
}

/** `json.dumps(cfg, sort_keys=True)` and its SHA-256, as LMCache computes the header's config fields. */
export function configDigest(config: PyJsonValue): {json: string; digest: string} {
  const json = pyJsonDumps(config, {sortKeys: true, ensureAscii: true})
  return {json, digest: createHash('sha256').update(json, 'utf8').digest('hex')}
}

function defaultPath(): string {
  const d = new Date()
  const p = (n: number) => String(n).padStart(2, '0')
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`
  return join(tmpdir(), `lmt-trace-${process.pid}-${stamp}.lct`)
}

/**
 * Writes a `.lct` file the way LMCache's recorder does: the header is deferred until a config is attached (or a
 * placeholder header is written before the first record or at close); each frame is one synchronous write, so a
 * crash leaves at most one partial frame; records that cannot be encoded are dropped and counted.
 */
export class TraceRecorder implements CallSink {
  readonly path: string
  readonly level: string
  readonly tMonoStart: number
  readonly tWallStart: number
  private fd: number | undefined
  private headerWritten = false
  private headerFailed = false
  private dropped = 0
  private written = 0
  private readonly capturing: boolean
  private readonly clock: Clock
  private readonly levelMeta: Record<string, RawValue>
  private readonly onWarning: (message: string) => void
  private readonly write: (fd: number, bytes: Buffer) => void
  private readonly chunk: Buffer | undefined
  private chunkUsed = 0
  private chunkRecords = 0

  constructor(opts: TraceRecorderOptions = {}) {
    this.path = opts.path ?? defaultPath()
    this.level = opts.level ?? 'storage'
    this.levelMeta = opts.levelMeta ?? {}
    this.clock = opts.clock ?? processClock
    this.onWarning = opts.onWarning ?? (() => {})
    this.capturing = opts.capturesCalls ?? true
    this.write = opts.write ?? ((fd, bytes) => void writeSync(fd, bytes))
    if (opts.chunkBytes && opts.chunkBytes > 0) this.chunk = Buffer.allocUnsafe(opts.chunkBytes)
    this.fd = openSync(this.path, opts.exclusive ? 'wx' : 'w')
    this.tMonoStart = this.clock.mono()
    this.tWallStart = this.clock.wall()
    if (this.capturing) {
      setActiveRecorder(this)
      setTracingEnabled(true)
    }
  }

  get droppedCount(): number {
    return this.dropped
  }

  get recordsWritten(): number {
    return this.written
  }

  get closed(): boolean {
    return this.fd === undefined
  }

  /** The first call writes the real header; later calls are ignored. */
  attachConfig(configDict: PyJsonValue): void {
    if (this.headerWritten || this.closed) return
    const {json, digest} = configDigest(configDict)
    this.writeHeader(json, digest)
  }

  onCall(qualname: string, rawArgs: Record<string, unknown>): void {
    this.writeRecord(qualname, rawArgs, this.clock.mono(), this.clock.wall())
  }

  writeRecord(qualname: string, rawArgs: Record<string, unknown>, tMonoAbs: number, tWall: number): void {
    if (this.closed) {
      this.dropped++
      return
    }
    let bytes: Buffer
    try {
      const body = encodeRecordBody({
        tMono: Math.max(0, tMonoAbs - this.tMonoStart),
        tWall,
        qualname,
        args: encodeArgs(rawArgs),
      })
      bytes = frame(body)
    } catch (err) {
      if (!(err instanceof CodecError || err instanceof MsgpackEncodeError)) throw err
      this.dropped++
      this.onWarning(`dropping trace record for ${qualname}: ${err.message}`)
      return
    }
    if (!this.headerWritten) this.writeHeader('', '')
    if (this.headerFailed) {
      this.dropped++
      return
    }
    if (this.chunk && bytes.length <= this.chunk.length) {
      if (this.chunkUsed + bytes.length > this.chunk.length) this.flushChunk()
      bytes.copy(this.chunk, this.chunkUsed)
      this.chunkUsed += bytes.length
      this.chunkRecords++
      this.written++
      return
    }
    this.flushChunk()
    try {
      this.write(this.fd as number, bytes)
      this.written++
    } catch (err) {
      this.dropped++
      this.onWarning(`dropping trace record for ${qualname}: ${(err as Error).message}`)
    }
  }

  /** Writes the collected frames (chunked mode); a failure drops and counts them. */
  private flushChunk(): void {
    if (!this.chunk || this.chunkUsed === 0) return
    try {
      this.write(this.fd as number, this.chunk.subarray(0, this.chunkUsed))
    } catch (err) {
      this.dropped += this.chunkRecords
      this.written -= this.chunkRecords
      this.onWarning(`dropping ${this.chunkRecords} trace records: ${(err as Error).message}`)
    }
    this.chunkUsed = 0
    this.chunkRecords = 0
  }

  /**
   * Idempotent: writes the placeholder header if none was written, fsyncs and closes. `fsync: false` for a file about
   * to be removed (an abandoned temporary file need not reach the disk).
   */
  close(options: {fsync?: boolean} = {}): void {
    if (this.closed) return
    if (this.capturing) {
      setTracingEnabled(false)
      setActiveRecorder(undefined)
    }
    if (!this.headerWritten) this.writeHeader('', '')
    this.flushChunk()
    const fd = this.fd as number
    try {
      if (options.fsync !== false) fsyncSync(fd)
    } catch (err) {
      this.onWarning(`fsync of ${this.path} failed: ${(err as Error).message}`)
    }
    closeSync(fd)
    this.fd = undefined
  }

  private writeHeader(json: string, digest: string): void {
    this.headerWritten = true
    const body = encodeHeaderBody({
      magic: LCT_MAGIC,
      formatVersion: LCT_FORMAT_VERSION,
      level: this.level,
      traceSchemaVersion: LCT_WRITE_SCHEMA_VERSION,
      tMonoStart: this.tMonoStart,
      tWallStart: this.tWallStart,
      smConfigJson: json,
      smConfigDigest: digest,
      levelMeta: this.levelMeta as never,
    })
    try {
      this.write(this.fd as number, frame(body))
    } catch (err) {
      this.headerFailed = true
      this.onWarning(`cannot write the trace header of ${this.path}: ${(err as Error).message}`)
    }
  }
}
