// A full garbage collection on request, for a phase boundary after which much is known dead. Freed ArrayBuffers
// are returned only when a collection finds them; until then a phase that follows grows the process instead of
// reusing their memory. V8 offers no collection without --expose-gc: the flag is set just long enough to take
// its `gc` function from a fresh context (the global one never gets it), then unset, so that the set of flags
// (which V8 code caches are made for) is the one before.
import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

let gc: (() => void) | undefined

/** Collects garbage now (a few ms for a small heap). */
export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc')
    try {
      gc = runInNewContext('gc') as () => void
    } finally {
      setFlagsFromString('--no-expose-gc')
    }
  }
  gc()
}
