// Run by simulate.bench.ts with --expose-gc (docs/simulate.md §8.2 P4): the heap and typed-array memory an lru replay holds
// per distinct block (the key interner, the tree, the policy lists), the trace streamed through one Player.
// Prints {bytes, blocks} as JSON.
import {join} from 'node:path'
import {ROOT} from './harness.mjs'

const dist = (p) => import(join(ROOT, 'dist', 'src', 'simulate', p))
const {readTraceRows, newStats} = await dist('input/trace-source.js')
const {KeyInterner} = await dist('input/key-interner.js')
const {Player} = await dist('engine/player.js')
const {resolveConfig} = await dist('config/config.js')

const [trace, blockSize] = process.argv.slice(2)
// freed ArrayBuffers are released after a GC, not in it: collect, let that happen, collect again
const used = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}
const resolved = resolveConfig(undefined, {trace, blockSize: Number(blockSize), capacityBlocks: -1}, 'get')
const before = await used()
const keys = new KeyInterner()
const replayer = new Player({
  config: resolved.config,
  seed: 1n,
  quickInstance: resolved.quickInstance,
  strictInstances: false,
  plots: false,
  traceName: 'heap',
})
const opts = {path: trace, name: 'heap', skipInvalid: false, mode: 'read_write', keys}
for await (const row of readTraceRows(opts, newStats(trace))) replayer.apply(row)
replayer.finish()
const bytes = (await used()) - before
const blocks = replayer.ordered.reduce((n, i) => n + i.counters.final_cached_blocks, 0)
process.stdout.write(JSON.stringify({bytes, blocks, keys: keys.size}) + '\n')
