// The README's first command: runs lmt's main jobs on the bundled Mooncake trace (samples/), nothing from outside.
import {spawnSync} from 'node:child_process'
import {mkdirSync} from 'node:fs'
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
console.log(`\ndemo outputs are in ${out}`)
