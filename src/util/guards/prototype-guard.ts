// A plugin's code runs in lmt's own realm: an assignment such as `Object.prototype.exitCode = 0` would change every
// read of a missing property, in lmt, in oclif and in Node itself (process.exitCode included). lmt takes a snapshot
// of the shared prototypes before the first third-party module loads and, after each piece of plugin code, puts
// back whatever was added, changed or removed.

const GUARDED: ReadonlyArray<[string, object]> = [
  ['Object.prototype', Object.prototype],
  ['Array.prototype', Array.prototype],
  ['Function.prototype', Function.prototype],
  ['String.prototype', String.prototype],
  ['Number.prototype', Number.prototype],
  ['BigInt.prototype', BigInt.prototype],
  ['Boolean.prototype', Boolean.prototype],
  ['Promise.prototype', Promise.prototype],
  ['Error.prototype', Error.prototype],
  ['Map.prototype', Map.prototype],
  ['Set.prototype', Set.prototype],
]

type Snapshot = Map<PropertyKey, PropertyDescriptor>

let snapshots: Snapshot[] | undefined

function descriptors(target: object): Snapshot {
  const out: Snapshot = new Map()
  for (const key of Reflect.ownKeys(target))
    out.set(key, Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor)
  return out
}

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return (
    a.value === b.value &&
    a.get === b.get &&
    a.set === b.set &&
    a.writable === b.writable &&
    a.enumerable === b.enumerable &&
    a.configurable === b.configurable
  )
}

/** Records the shared prototypes as they are now (once: the first call wins). */
export function snapshotPrototypes(): void {
  snapshots ??= GUARDED.map(([, target]) => descriptors(target))
}

/**
 * Undoes every change to the shared prototypes since the snapshot; returns what was changed
 * (`Object.prototype.exitCode`, …), empty when nothing was. A property that cannot be put back (a plugin froze the
 * prototype) is still reported.
 */
export function restorePrototypes(): string[] {
  if (!snapshots) return []
  const changed: string[] = []
  GUARDED.forEach(([name, target], i) => {
    const before = (snapshots as Snapshot[])[i]
    const now = descriptors(target)
    for (const [key, d] of now) {
      const old = before.get(key)
      if (old && sameDescriptor(old, d)) continue
      changed.push(`${name}.${String(key)}`)
      if (old) Reflect.defineProperty(target, key, old)
      else Reflect.deleteProperty(target, key)
    }
    for (const [key, old] of before) {
      if (now.has(key)) continue
      changed.push(`${name}.${String(key)}`)
      Reflect.defineProperty(target, key, old)
    }
  })
  return changed
}
