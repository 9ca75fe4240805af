import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

// in a process of its own: V8's flags are process-wide, and the young generation's size is the process's
const script = (hold: boolean) => `
import {getHeapSpaceStatistics} from 'node:v8'
import {Worker} from 'node:worker_threads'
const {holdYoungGeneration, releaseYoungGeneration} = await import(${JSON.stringify(
  pathToFileURL(join(ROOT, 'dist', 'src', 'convert', 'young-generation-hold.js')).href,
)})
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
const keep = []
const churn = (n) => { for (let i = 0; i < n; i++) { keep.push({i, a: [i]}); if (keep.length > 150000) keep.splice(0, 75000) } }
// a worker running first (its start resets V8's flags), as a converter's batches have one
const w = new Worker('setTimeout(() => {}, 200)', {eval: true})
await new Promise((r) => w.on('online', r))
while (newSpace() < 8 << 20) churn(1e4) // grown some way, as by the time a converter's first batch is in
${hold ? 'holdYoungGeneration()' : ''}
const before = newSpace()
churn(2e6)
const held = newSpace()
releaseYoungGeneration()
churn(2e6)
console.log(JSON.stringify({before, held, after: newSpace()}))
`

describe('holdYoungGeneration', () => {
  it.each([true, false])('keeps the young generation at its size until released (held: %s)', (hold) => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(hold)], {encoding: 'utf8'})
    expect(r.stderr).toBe('')
    const {before, held, after} = JSON.parse(r.stdout) as {before: number; held: number; after: number}
    if (hold) expect(held).toBe(before)
    else expect(held).toBeGreaterThan(before)
    expect(after).toBeGreaterThan(before) // grows again once released
  })
})
