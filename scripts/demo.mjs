// The README's first command: runs lmt's main jobs on the bundled Mooncake trace (samples/), nothing from outside.
import {spawnSync} from 'node:child_process'
import {mkdirSync, readdirSync, rmSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'demo-out')
mkdirSync(out, {recursive: true})

function lmt(title, args) {
  console.log(`\n=== ${title}\n$ lmt ${args.join(' ')}`)
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.js'), ...args], {cwd: root, stdio: 'inherit'})
  if (r.status !== 0) {
    console.error(`demo step failed (exit ${r.status})`)
    process.exit(r.status ?? 1)
  }
}

const trace = join('samples', 'mooncake_conversation_trace.jsonl')
lmt('the converters lmt knows', ['converters'])
lmt("convert the bundled Mooncake FAST'25 conversation trace (12,031 requests) to Get+Write JSONL", [
  'convert',
  '-i',
  trace,
  '-f',
  'mooncake',
  '-o',
  join('demo-out', 'mooncake_optimizer.jsonl'),
  '--no-progress',
])
lmt('summarise a bundled LMCache .lct trace', [
  'trace',
  'info',
  join('samples', 'lct', 'v2_full_prefetch_cycle.lct'),
])
lmt('replay it against the StorageManager model (virtual time, deterministic)', [
  'replay',
  join('samples', 'lct', 'v2_full_prefetch_cycle.lct'),
  '--l1-size-gb',
  '0.0625',
  '--no-l1-use-lazy',
  '--eviction-policy',
  'LRU',
  '--output-dir',
  join('demo-out', 'replay'),
])
lmt('the bridge: the Mooncake trace as LMCache calls (.lct) …', [
  'convert',
  '-i',
  trace,
  '-f',
  'mooncake',
  '--mode',
  'lct',
  '-o',
  join('demo-out', 'mooncake.lct'),
  '--kv-layout',
  '2x36x512x8x128:bfloat16',
  '--l1-size-gb',
  '64',
  '--eviction-policy',
  'LRU',
  '--no-progress',
  '-q',
])
lmt('… replayed through the StorageManager model with a 64 GB L1', [
  'replay',
  join('demo-out', 'mooncake.lct'),
  '--l1-size-gb',
  '64',
  '--eviction-policy',
  'LRU',
  '--output-dir',
  join('demo-out', 'replay-mooncake'),
])
// the bridged trace (~170 MB) has served its purpose: the demo does not leave it behind
rmSync(join(out, 'mooncake.lct'), {force: true})
console.log(`(removed ${join('demo-out', 'mooncake.lct')}: lmt convert --mode lct writes it again)`)
// then the simulation and its plots
lmt('simulate LRU with 17,090 blocks of 512 tokens on it', [
  'simulate',
  '--trace',
  join('demo-out', 'mooncake_optimizer.jsonl'),
  '--block-size',
  '512',
  '--capacity-blocks',
  '17090',
  '-o',
  join('demo-out', 'simulate'),
  '--no-progress',
])
lmt('sweep the capacity: hit rate against cache size, with the Belady and infinite-capacity references', [
  'simulate',
  '--trace',
  join('demo-out', 'mooncake_optimizer.jsonl'),
  '--block-size',
  '512',
  '--sweep',
  '--sweep-points',
  '12',
  '-o',
  join('demo-out', 'sweep'),
  '--no-progress',
])
// the end: the whole answer for the trace as one page
lmt('the capacity-planning report: how much KV cache, with which policy, and why (one HTML page)', [
  'report',
  '--trace',
  join('demo-out', 'mooncake_optimizer.jsonl'),
  '--kv-layout',
  '2x36x512x8x128:bfloat16',
  '-o',
  join('demo-out', 'report.html'),
  '--no-progress',
])
console.log(
  `\nplots: ${join(out, 'simulate', 'hit_rate_over_time.svg')} and ${join(out, 'sweep', 'sweep_hit_rate.svg')}`,
)
/** bytes under a path */
const size = (p) =>
  statSync(p).isDirectory() ? readdirSync(p).reduce((a, n) => a + size(join(p, n)), 0) : statSync(p).size
console.log(
  `\ndemo outputs are in ${out} (${(size(out) / 2 ** 20).toFixed(1)} MiB; delete the folder when done):`,
)
for (const name of readdirSync(out).sort()) console.log(`  ${name}`)
console.log(`\nthe report (open it in a browser): ${join(out, 'report.html')}`)
