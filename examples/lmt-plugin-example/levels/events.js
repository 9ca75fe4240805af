// A toy replay level for LMCache `events` traces: counts and validates lifecycle events.
import {MapDispatcher} from 'lmt'

/** @type {import('lmt').ReplayLevel} */
export const eventsLevel = {
  name: 'events',
  description: 'LMCache cache events (toy): counts events per kind and checks their shape',
  flags: {},
  replayableSchemaVersions: [2],
  parseConfig: (_flags, header) => ({instance: header.levelMeta?.instance_id ?? null}),
  createTarget: () => ({events: 0, byKind: new Map(), invalid: 0}),
  buildDispatcher() {
    const d = new MapDispatcher()
    d.register('events.lifecycle', ({target}, args) => {
      target.events++
      const kind =
        typeof args.kind === 'string' ? args.kind : typeof args.event === 'string' ? args.event : '(unnamed)'
      target.byKind.set(kind, (target.byKind.get(kind) ?? 0) + 1)
    })
    return d
  },
  observations(target) {
    const rows = [['Events', target.events]]
    for (const [k, n] of [...target.byKind].sort()) rows.push([`Events: ${k}`, n])
    return {json: {events: target.events, by_kind: Object.fromEntries(target.byKind)}, rows}
  },
}
