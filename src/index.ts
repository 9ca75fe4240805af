// The public API of lmt: what converter and plugin authors build against.
// the converter API: also the `lmt/converter` entry, which loads none of the .lct and replay modules below
export * from './converter.js'
export {LctError} from './errors.js'
export * from './lct/index.js'
/** The 64-bit Get+Write key of an LMCache ObjectKey (what `--mode lct` writes and `lmcache_lct` reads back). */
export {keyOfObjectKey} from './convert/lct-bridge.js'
export {
  MapDispatcher,
  type Dispatcher,
  type Handler,
  type LevelObservations,
  type ReplayContext,
  type ReplayEnv,
  type ReplayLevel,
} from './replay/level.js'
export type {Scheduler} from './replay/scheduler.js'
export {registerReplayLevel} from './plugins/level-registry.js'
