import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, tempDir} from '../../helpers/cli.js'

// a worker runs JavaScript: the pool and its worker side are taken from the build (`npm test` builds first)
const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href
const {WorkerPool} = (await import(
  dist('src/util/workers/worker-pool.js')
)) as typeof import('../../../src/util/workers/worker-pool.js')
const {OrderedJobs} = (await import(
  dist('src/util/workers/ordered-jobs.js')
)) as typeof import('../../../src/util/workers/ordered-jobs.js')
const {LctError, LmtError, lmtError} = (await import(
  dist('src/errors.js')
)) as typeof import('../../../src/errors.js')

const tmp = tempDir()
afterAll(() => tmp.cleanup())

// the test worker: answers with its thread id and the job's bytes doubled (moved back), or fails as asked
const entry = pathToFileURL(join(tmp.dir, 'test-worker.mjs'))
writeFileSync(
  entry,
  `import {threadId} from 'node:worker_threads'
import {serveJobs} from ${JSON.stringify(dist('src/util/workers/serve-jobs.js'))}
import {LctError, lmtError} from ${JSON.stringify(dist('src/errors.js'))}
serveJobs(async (job) => {
  if (job.throw === 'coded') throw lmtError('CONVERT_BAD_CONFIG', 'f.json', 'no such field', {suggestions: ['check the field']})
  if (job.throw === 'lct') throw new LctError('LCT_TRUNCATED', 'x.lct', 'the last frame is cut', 42)
  if (job.throw === 'plain') throw new TypeError('not a function')
  if (job.exit !== undefined) process.exit(job.exit)
  if (job.wait) await new Promise((resolve) => setTimeout(resolve, job.wait))
  const bytes = new Uint8Array(job.bytes)
  for (let i = 0; i < bytes.length; i++) bytes[i] *= 2
  return {result: {threadId, bytes: bytes.buffer, seq: job.seq}, transfer: [bytes.buffer]}
})
`,
)

type Job = {seq?: number; bytes?: ArrayBuffer; throw?: string; exit?: number; wait?: number}
type Result = {threadId: number; bytes: ArrayBuffer; seq: number}
const pool = (count: number, signal?: AbortSignal) =>
  new WorkerPool<Job, Result>({name: 'test', entry, count, signal})

describe('the worker pool', () => {
  it('gives results in submission order, round-robin over its threads, buffers moved both ways', async () => {
    const workers = pool(2)
    try {
      const jobs = new OrderedJobs(workers, 2)
      const sent: ArrayBuffer[] = []
      for (let seq = 0; seq < 4; seq++) {
        const bytes = new Uint8Array([seq, 1, 2]).buffer
        sent.push(bytes)
        // the later jobs finish first: the order still holds
        jobs.submit({seq, bytes, wait: 40 - 10 * seq}, [bytes])
      }
      expect(jobs.full).toBe(true)
      expect(sent.map((b) => b.byteLength)).toEqual([0, 0, 0, 0]) // moved to the threads, not copied
      const results: Result[] = []
      while (jobs.pending > 0) results.push(await jobs.next())
      expect(results.map((r) => r.seq)).toEqual([0, 1, 2, 3])
      expect(results.map((r) => [...new Uint8Array(r.bytes)])).toEqual([
        [0, 2, 4],
        [2, 2, 4],
        [4, 2, 4],
        [6, 2, 4],
      ])
      expect(new Set(results.map((r) => r.threadId)).size).toBe(2)
      expect(results[0].threadId).toBe(results[2].threadId)
    } finally {
      await workers.close()
    }
  })

  it('rethrows what a job threw: coded errors with their code, .lct errors with their parts, others by name', async () => {
    const workers = pool(1)
    try {
      const coded = await workers.call(0, {throw: 'coded'}).catch((e: unknown) => e)
      const want = lmtError('CONVERT_BAD_CONFIG', 'f.json', 'no such field', {
        suggestions: ['check the field'],
      })
      expect(coded).toBeInstanceOf(LmtError)
      expect(coded).toMatchObject({message: want.message, code: want.code, exitCode: 1})
      expect((coded as InstanceType<typeof LmtError>).suggestions).toEqual(['check the field'])
      const lct = await workers.call(0, {throw: 'lct'}).catch((e: unknown) => e)
      expect(lct).toBeInstanceOf(LctError)
      expect(lct).toMatchObject({
        code: 'LMT_LCT_TRUNCATED',
        source: 'x.lct',
        offset: 42,
        message: "trace file 'x.lct': the last frame is cut",
      })
      const plain = await workers.call(0, {throw: 'plain'}).catch((e: unknown) => e)
      expect(plain).not.toBeInstanceOf(LmtError)
      expect(plain).toMatchObject({name: 'TypeError', message: 'not a function'})
      expect((plain as Error).stack).toContain('test-worker.mjs') // the worker's own stack
      // a failed job does not end the thread
      expect((await workers.call(0, {seq: 7, bytes: new ArrayBuffer(1)})).seq).toBe(7)
    } finally {
      await workers.close()
    }
  })

  it('a thread that ends fails the jobs waiting and those handed out later with WORKER_FAILED', async () => {
    const workers = pool(2)
    try {
      const slow = workers.call(1, {seq: 1, bytes: new ArrayBuffer(1), wait: 2000})
      const exited = await workers.call(0, {exit: 3}).catch((e: unknown) => e)
      expect(exited).toBeInstanceOf(LmtError)
      expect(exited).toMatchObject({
        code: 'LMT_CLI_WORKER_FAILED',
        message: 'the test thread stopped (exit code 3)',
      })
      await expect(slow).rejects.toBe(exited)
      await expect(workers.call(1, {seq: 2, bytes: new ArrayBuffer(1)})).rejects.toBe(exited)
    } finally {
      await workers.close()
    }
  })

  it('an abort ends the threads at once and fails the waiting jobs with its reason', async () => {
    const ac = new AbortController()
    const workers = pool(1, ac.signal)
    const waiting = workers.call(0, {seq: 1, bytes: new ArrayBuffer(1), wait: 60_000})
    const reason = lmtError('CLI_INTERRUPTED', 'SIGINT')
    const started = Date.now()
    ac.abort(reason)
    await expect(waiting).rejects.toBe(reason)
    await workers.close()
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('close fails the jobs still waiting, and OrderedJobs drops them without an unhandled rejection', async () => {
    const workers = pool(1)
    const jobs = new OrderedJobs(workers, 3)
    jobs.submit({seq: 1, bytes: new ArrayBuffer(1), wait: 60_000})
    jobs.submit({seq: 2, bytes: new ArrayBuffer(1), wait: 60_000})
    await workers.close()
    await expect(jobs.next()).rejects.toMatchObject({
      code: 'LMT_CLI_WORKER_FAILED',
      message: 'the test thread stopped (closed)',
    })
    await expect(workers.call(0, {seq: 3})).rejects.toMatchObject({code: 'LMT_CLI_WORKER_FAILED'})
  })
})
