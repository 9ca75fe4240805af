// A toy replay level for traces recorded at level "tally": it models nothing, it counts the records of each
// operation and the distinct keys they name. lmt's own levels ("storage", "events") show what a full one does.
import {MapDispatcher} from 'lmt'

const OPERATIONS = ['tally.put', 'tally.get']

/** @type {import('lmt').ReplayLevel} */
export const tallyLevel = {
  name: 'tally',
  description: 'Toy level: counts the records of each operation of a "tally" trace and the keys they name',
  flags: {},
  replayableSchemaVersions: [2],
  parseConfig: (_flags, header) => ({instance: header.levelMeta?.instance_id ?? null}),
  createTarget: () => ({records: new Map(), keys: new Set()}),
  buildDispatcher() {
    const d = new MapDispatcher()
    for (const op of OPERATIONS)
      d.register(op, ({target}, args) => {
        target.records.set(op, (target.records.get(op) ?? 0) + 1)
        for (const k of Array.isArray(args.keys) ? args.keys : []) target.keys.add(String(k))
      })
    return d
  },
  observations(target) {
    const rows = [...target.records].sort().map(([op, n]) => [`Records: ${op}`, n])
    rows.push(['Distinct keys', target.keys.size])
    return {json: {records: Object.fromEntries(target.records), distinct_keys: target.keys.size}, rows}
  },
}
