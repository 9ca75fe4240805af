// A process that keeps V8's young generation small (simulate) keeps it small after a worker thread starts: the
// start resets V8's flags, and the worker pool sets it again. Checked in child processes, which fill their young
// generation with objects that survive (V8 grows it when most of a scavenge survives) and report its largest size.
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const dist = (p: string) => JSON.stringify(pathToFileURL(join(ROOT, 'dist', p)).href)
const worker = join(tmp.dir, 'idle-worker.mjs')
writeFileSync(
  worker,
  `import {serveJobs} from ${dist('src/util/workers/serve-jobs.js')}\nserveJobs(async () => ({result: 1}))\n`,
)

const program = `
  const v8 = await import('node:v8')
  const {keepYoungGenerationSmall} = await import(${dist('src/util/young-generation.js')})
  const {WorkerPool} = await import(${dist('src/util/workers/worker-pool.js')})
  const mode = process.argv[2]
  if (mode !== 'default') keepYoungGenerationSmall()
  // without the marker the pool cannot know the process keeps it small: what a worker's start does shows
  if (mode === 'kept-but-not-again') delete globalThis[Symbol.for('lmt.youngGenerationKeptSmall')]
  const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
  const first = newSpace()
  const pool = mode === 'no-worker' ? undefined : new WorkerPool({name: 'idle', entry: new URL(${JSON.stringify(pathToFileURL(worker).href)}), count: 1})
  await pool?.call(0, {}) // the worker is up
  let largest = first
  const kept = []
  for (let i = 0; i < 3e6; i++) {
    kept.push({i})
    if (i % 1e5 === 0) largest = Math.max(largest, newSpace())
  }
  await pool?.close()
  process.stdout.write(JSON.stringify({first, largest, kept: kept.length}))`

// a file, not -e: a worker thread starts with the parent's execArgv
const script = join(tmp.dir, 'young-generation.mjs')
writeFileSync(script, program)

function run(mode: string): {first: number; largest: number} {
  const out = execFileSync(process.execPath, [script, mode], {encoding: 'utf8'})
  return JSON.parse(out) as {first: number; largest: number}
}

describe('the young generation and worker threads', () => {
  it('grows no more after a worker starts when the process keeps it small; a worker start undoes the setting', () => {
    const alone = run('no-worker') // kept small, no worker: the growth there is (V8 may still grow it once)
    expect(run('kept').largest).toBe(alone.largest)
    expect(run('default').largest).toBeGreaterThan(4 * alone.largest)
    // without the pool setting it again, the worker's start lets it grow as by default
    expect(run('kept-but-not-again').largest).toBeGreaterThan(4 * alone.largest)
  })
})
