// The replay-level plugin contract (docs/storage-replay.md §2.1).
import type {JsonFloat} from '../formats/json/json-float.js'
import type {DecodedArgs} from '../formats/lct/codecs.js'
import type {TraceRecorder} from '../formats/lct/recorder.js'
import type {LctHeader} from '../formats/lct/types.js'
import type {Scheduler} from './scheduler.js'

export interface ReplayEnv {
  header: LctHeader
  pace: 'virtual' | 'realtime'
  speed: number
  scheduler: Scheduler
  /** deduplicated warning (printed once per code and key, then counted) */
  warn(code: string, key: string, message: string): void
  recorder?: TraceRecorder
}

export interface ReplayContext<T> {
  target: T
  env: ReplayEnv
  /** per-level state (e.g. open read contexts) */
  scratch: Map<string, unknown>
}

export type Handler<T> = (ctx: ReplayContext<T>, args: DecodedArgs) => void

export interface Dispatcher<T> {
  register(qualname: string, handler: Handler<T>): void
  has(qualname: string): boolean
  dispatch(qualname: string, ctx: ReplayContext<T>, args: DecodedArgs): void
}

export interface LevelObservations {
  json: Record<string, unknown>
  rows: Array<[label: string, value: string | number | JsonFloat]>
}

/** A replay level: how to rebuild a target from a trace of this level and reissue its calls. */
export interface ReplayLevel<Target = unknown, Config = unknown> {
  readonly name: string
  readonly description: string
  /** oclif flag definitions this level adds to `lmt replay` */
  readonly flags: Record<string, unknown>
  readonly replayableSchemaVersions: readonly number[]
  parseConfig(flags: Record<string, unknown>, header: LctHeader, warn: (message: string) => void): Config
  configDigest?(config: Config): {json: string; digest: string}
  createTarget(config: Config, env: ReplayEnv): Target
  buildDispatcher(): Dispatcher<Target>
  finalSweep?(ctx: ReplayContext<Target>): void
  /** end of replay, after the drain (e.g. the TTL scan) */
  finalize?(target: Target): void
  observations?(target: Target): LevelObservations
  snapshot?(target: Target): {state: unknown; digest: string}
  attachRecorder?(target: Target, config: Config, recorder: TraceRecorder): void
}

/** A qualname → handler map. */
export class MapDispatcher<T> implements Dispatcher<T> {
  private readonly handlers = new Map<string, Handler<T>>()

  register(qualname: string, handler: Handler<T>): void {
    if (this.handlers.has(qualname)) throw new Error(`handler for ${qualname} already registered`)
    this.handlers.set(qualname, handler)
  }

  has(qualname: string): boolean {
    return this.handlers.has(qualname)
  }

  dispatch(qualname: string, ctx: ReplayContext<T>, args: DecodedArgs): void {
    const h = this.handlers.get(qualname)
    if (!h) throw new Error(`no handler for ${qualname}`)
    h(ctx, args)
  }
}

/** True when a value has the shape of a replay level (duck typing, as for converters). */
export function isReplayLevel(v: unknown): v is ReplayLevel {
  if (v === null || typeof v !== 'object') return false
  const l = v as Record<string, unknown>
  return (
    typeof l.name === 'string' &&
    typeof l.createTarget === 'function' &&
    typeof l.buildDispatcher === 'function'
  )
}
