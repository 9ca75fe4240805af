// The parse thread (fast/parse-thread.ts) against the plain reader (input/trace-source.ts with LMT_PLAIN=1, no byte
// scanner): the same rows (key ids too), progress calls, statistics and errors (with their lines) in the same order,
// and the same run outputs (CSV and summary bytes, notices, errors) on random traces with bad rows, rows out of
// order and block-size contradictions.
import {existsSync, mkdirSync, readdirSync, writeFileSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, spawnLmt, tempDir} from '../../helpers/cli.js'
import {maskedLines, outputFiles} from '../../helpers/run-outputs.js'
import {LMT_TEMP} from '../../helpers/faults.js'

// the worker needs the built files (a worker runs JavaScript): `npm test` builds first
const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href
const {readTraceRowBatchesOnThread, parseThreadFor, PARSE_THREAD_MIN_BYTES} = (await import(
  dist('src/simulate/fast/parse-thread.js')
)) as typeof import('../../../src/simulate/fast/parse-thread.js')
const {newStats, readTraceRowBatches} = (await import(
  dist('src/simulate/input/trace-source.js')
)) as typeof import('../../../src/simulate/input/trace-source.js')
const {KeyInterner, KeyShards} = (await import(
  dist('src/simulate/input/key-interner.js')
)) as typeof import('../../../src/simulate/input/key-interner.js')
// the door, which puts the accelerators in (the parse thread among them)
const {simulate} = (await import(
  dist('src/simulate/index.js')
)) as typeof import('../../../src/simulate/index.js')
const {isLmtError} = (await import(dist('src/errors.js'))) as typeof import('../../../src/errors.js')

/** `f` with the environment variables `vars` set (undefined: unset), then put back. */
async function withEnv<T>(vars: Record<string, string | undefined>, f: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]))
  const put = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v))
      if (x === undefined) delete process.env[k]
      else process.env[k] = x
  }
  put(vars)
  try {
    return await f()
  } finally {
    put(saved)
  }
}

const tmp = tempDir('lmt-parse-thread-')
afterAll(() => tmp.cleanup())

let seed = 777
const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647
const int = (n: number) => Math.floor(rand() * n)

/** A bad line of some kind (each breaks a different rule, or the UTF-8). */
function badLine(ts: number): string | Buffer {
  switch (int(7)) {
    case 0:
      return '{"type": "get", "instance_id": "a", '
    case 1:
      return `{"type": "get", "instance_id": "a", "timestamp_ns": -${ts}, "keys": [1], "input_len": 16}`
    case 2:
      return `{"type": "write", "instance_id": "a", "timestamp_ns": ${ts}, "keys": [1.5]}`
    case 3:
      return Buffer.concat([
        Buffer.from('{"type": "get", "instance_id": "\xff'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ])
    case 4:
      return `{"type": "get", "instance_id": "a", "timestamp_ns": ${ts}, "keys": [1, 2]}`
    case 5:
      return `{"type": "gett", "instance_id": "a", "timestamp_ns": ${ts}, "keys": []}`
    default:
      return `{"type": "write", "instance_id": "", "timestamp_ns": ${ts}, "keys": [3]}`
  }
}

interface TraceShape {
  rows: number
  /** chance of a bad line */
  bad?: number
  /** chance of a row a little out of timestamp order */
  unsorted?: number
  /** chance of a get whose input_len says block size 32 instead of 16 */
  otherSize?: number
}

/** A random read_write trace at block size 16: gets with masks and query types, writes, keys near 2^64 too. */
function traceLines(shape: TraceShape): Array<string | Buffer> {
  const lines: Array<string | Buffer> = []
  for (let i = 0; i < shape.rows; i++) {
    let ts = 1000 + i * 10
    if (rand() < (shape.unsorted ?? 0)) ts -= 25
    if (rand() < (shape.bad ?? 0)) {
      lines.push(badLine(ts))
      continue
    }
    if (rand() < 0.01) lines.push('')
    const n = int(rand() < 0.1 ? 120 : 40)
    const keys = Array.from({length: n}, (_, k) =>
      k === 3 && rand() < 0.1 ? '18446744073709551615' : String(int(5000) * 7919 + k),
    )
    const inst = ['a', 'b', 'c'][int(3)]
    if (rand() < 0.5) {
      lines.push(
        `{"type": "write", "instance_id": "${inst}", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}]}`,
      )
      continue
    }
    const bs = rand() < (shape.otherSize ?? 0) ? 32 : 16
    const extra: string[] = []
    const m = rand()
    if (m < 0.1) extra.push(`"block_mask": ${int(n + 3)}`)
    else if (m < 0.2) extra.push(`"block_mask": [${keys.map(() => rand() < 0.5).join(', ')}]`)
    if (rand() < 0.05) extra.push(`"query_type": "${rand() < 0.5 ? 'prefix_match' : 'full_match'}"`)
    lines.push(
      `{"type": "get", "instance_id": "${inst}", "timestamp_ns": ${ts}, "keys": [${keys.join(', ')}], "input_len": ${n * bs + 1 + int(bs - 1)}${extra.map((e) => `, ${e}`).join('')}}`,
    )
  }
  return lines
}

let files = 0
function writeTrace(lines: Array<string | Buffer>): string {
  const path = join(tmp.dir, `t${files++}.jsonl`)
  writeFileSync(path, Buffer.concat(lines.flatMap((l) => [Buffer.from(l), Buffer.from('\n')])))
  return path
}

const errorFacts = (err: unknown) =>
  isLmtError(err)
    ? {kind: err.kind, message: err.message, exitCode: err.exitCode, suggestions: err.suggestions}
    : {message: String(err)}

/** Everything a reader shows its caller, in order. */
async function readerLog(
  path: string,
  skipInvalid: boolean,
  onThread: boolean,
  mode: 'read_write' | 'request' = 'read_write',
  tieredRows = false,
): Promise<unknown[]> {
  const stats = newStats(path)
  const log: unknown[] = []
  const opts = {
    path,
    name: 'trace.jsonl',
    skipInvalid,
    mode,
    tieredRows,
    onBytes: (bytes: number) => log.push(['bytes', bytes, structuredClone(stats)]),
  }
  const keys = KeyInterner.forTraceBytes(stats.bytes)
  // the plain reader: LMT_PLAIN=1 leaves the byte scanner out (the thread's worker puts its own in)
  return withEnv({LMT_PLAIN: onThread ? undefined : '1'}, async () => {
    const batches = onThread
      ? readTraceRowBatchesOnThread({...opts, keys}, stats)
      : readTraceRowBatches({...opts, keys}, stats)
    try {
      for await (const rows of batches) log.push(['rows', structuredClone(rows), structuredClone(stats)])
      log.push(['end', structuredClone(stats)])
    } catch (err) {
      log.push(['error', errorFacts(err), structuredClone(stats)])
    }
    // tiered rows: the caller reads the keys' values by id (the thread's interner mirrored here)
    if (tieredRows) log.push(['key values', Array.from(keys.sharedValues())])
    return log
  })
}

describe('the parsing thread gives what the reader gives', () => {
  it.each([
    ['clean, many batches', {rows: 9000}, false, 5, 'end'],
    ['bad rows, skipped', {rows: 6000, bad: 0.05}, true, 4, 'end'],
    ['bad rows, the first one ends the read', {rows: 6000, bad: 0.0004}, false, 1, 'error'],
    ['a bad row in the first batch', {rows: 3000, bad: 0.01}, false, 0, 'error'],
  ] as const)('%s', async (_name, shape, skipInvalid, batches, ends) => {
    const path = writeTrace(traceLines(shape))
    const plain = await readerLog(path, skipInvalid, false)
    const threaded = await readerLog(path, skipInvalid, true)
    expect(plain.filter((e) => (e as unknown[])[0] === 'rows').length).toBeGreaterThanOrEqual(batches)
    expect((plain.at(-1) as unknown[])[0]).toBe(ends)
    expect(threaded).toEqual(plain)
  })

  it('a mode error (a write in a request trace), with its line', async () => {
    const path = writeTrace(traceLines({rows: 3000}))
    const plain = await readerLog(path, true, false, 'request')
    expect((plain.at(-1) as unknown[])[1]).toMatchObject({kind: 'SIM_TRACE_MODE'})
    expect(await readerLog(path, true, true, 'request')).toEqual(plain)
  })

  it.each([
    ['bad rows and the timestamp 0 of the last row skipped', 0.05, true, 'end'],
    ['a bad row ends the read', 0.002, false, 'error'],
    ['the timestamp 0 of the last row ends the read', 0, false, 'error'],
  ] as const)(
    'tiered rows (%s): gets, writes with ttl_us and requests mixed, and the keys’ values',
    async (_n, bad, skip, ends) => {
      const lines = traceLines({rows: 6000, bad}).map((l) => {
        if (typeof l !== 'string' || l === '') return l
        if (l.startsWith('{"type": "write"') && rand() < 0.3)
          return l.replace(/}$/, `, "ttl_us": ${int(2e6) - 1000}}`)
        if (l.startsWith('{"type": "get"') && rand() < 0.2) return l.replace('"get"', '"request"')
        return l
      })
      lines.push('{"type": "write", "instance_id": "a", "timestamp_ns": 0, "keys": [1]}')
      const path = writeTrace(lines)
      const plain = await readerLog(path, skip, false, 'read_write', true)
      const rows = plain
        .filter((e) => (e as unknown[])[0] === 'rows')
        .flatMap((e) => (e as [string, Array<{ttlUs?: bigint; type: string}>])[1])
      expect(rows.some((r) => r.type === 'request') && rows.some((r) => r.ttlUs !== undefined)).toBe(true)
      expect((plain.at(-2) as unknown[])[0]).toBe(ends)
      expect((plain.at(-1) as unknown[])[1]).not.toHaveLength(0)
      expect(await readerLog(path, skip, true, 'read_write', true)).toEqual(plain)
    },
  )

  it('a missing trace is the same coded error', async () => {
    const path = join(tmp.dir, 'missing.jsonl')
    const plain = await readerLog(path, false, false)
    expect((plain.at(-1) as unknown[])[1]).toMatchObject({kind: 'SIM_TRACE_READ'})
    expect(await readerLog(path, false, true)).toEqual(plain)
  })

  it('a run that stops early ends the thread', async () => {
    const path = writeTrace(traceLines({rows: 9000}))
    const stats = newStats(path)
    const opts = {path, name: 't', skipInvalid: false, mode: 'read_write' as const, keys: new KeyInterner()}
    for await (const rows of readTraceRowBatchesOnThread(opts, stats)) {
      expect(rows.length).toBeGreaterThan(0)
      break
    }
    expect(stats.rows).toBeLessThan(9000)
  })
})

describe('a parsing thread that dies is a coded error', () => {
  const dying = (body: string) => {
    const path = join(tmp.dir, `dying-${files++}.mjs`)
    writeFileSync(path, body)
    return pathToFileURL(path)
  }
  it.each([
    ['it exits', 'process.exit(3)', 'the trace parsing thread stopped (exit code 3)'],
    [
      'it throws at start-up',
      'throw new Error("no such thing")',
      'the trace parsing thread stopped (no such thing)',
    ],
  ])('%s', async (_name, body, message) => {
    const path = writeTrace(traceLines({rows: 100}))
    const opts = {
      path,
      name: 't',
      skipInvalid: false,
      mode: 'read_write' as const,
      keys: new KeyInterner(),
      entry: dying(body),
    }
    let caught: unknown
    try {
      for await (const _rows of readTraceRowBatchesOnThread(opts, newStats(path))) {
        // no rows come
      }
    } catch (err) {
      caught = err
    }
    expect(errorFacts(caught)).toMatchObject({kind: 'CLI_WORKER_FAILED', message, exitCode: 1})
  })
})

describe('which traces are parsed on a thread', () => {
  it('large ones with two cores or more, unless the environment forces it', () => {
    const twoCores = availableParallelism() >= 2
    expect(parseThreadFor(PARSE_THREAD_MIN_BYTES - 1, {})).toBeUndefined()
    expect(parseThreadFor(PARSE_THREAD_MIN_BYTES, {}) !== undefined).toBe(twoCores)
    expect(parseThreadFor(0, {LMT_SIMULATE_PARSE_THREAD: 'on'})).toBe(readTraceRowBatchesOnThread)
    expect(parseThreadFor(PARSE_THREAD_MIN_BYTES, {LMT_SIMULATE_PARSE_THREAD: 'off'})).toBeUndefined()
  })

  it('only when the caller reads no key (or a tiered read only their values), never on the plain paths', async () => {
    const path = writeTrace(traceLines({rows: 50}))
    const read = async (opts: Record<string, unknown>, env: Record<string, string | undefined>) =>
      withEnv({LMT_SIMULATE_PARSE_THREAD: 'on', ...env}, async () => {
        const keys = new KeyInterner()
        const rows: unknown[] = []
        const base = {path, name: 't', skipInvalid: true, mode: 'read_write' as const, keys}
        for await (const b of readTraceRowBatches({...base, ...opts}, newStats(path))) rows.push(...b)
        // the thread interns in its own interner: this side's stays empty
        return keys.size
      })
    expect(await read({keysPrivate: true}, {})).toBe(0)
    expect(await read({keysPrivate: true}, {LMT_PLAIN: '1'})).toBeGreaterThan(0)
    expect(await read({}, {})).toBeGreaterThan(0)
    // a tiered read: the keys' values come back only to a caller that reads them (a sharded LRU's shards)
    expect(await read({keysPrivate: true, tieredRows: true}, {})).toBe(0)
    expect(await read({tieredRows: true}, {})).toBeGreaterThan(0)
  })

  it("hands over each key's shards under every count asked, on the thread or not, before the key's rows", async () => {
    const path = writeTrace(traceLines({rows: 400}))
    const counts = [1024, 7, 100_000]
    const base = {path, name: 't', skipInvalid: true, mode: 'read_write' as const, tieredRows: true}
    // the keys' values, as the plain paths intern them on this thread
    const values = new KeyInterner()
    await withEnv({LMT_PLAIN: '1'}, async () => {
      for await (const _b of readTraceRowBatches({...base, keys: values}, newStats(path))) {
        // interning only
      }
    })
    expect(values.size).toBeGreaterThan(1000)
    for (const thread of ['on', 'off']) {
      const shards = new KeyShards(counts)
      const keys = new KeyInterner()
      await withEnv({LMT_SIMULATE_PARSE_THREAD: thread}, async () => {
        for await (const rows of readTraceRowBatches(
          {...base, keys, keysPrivate: true, keyShards: shards},
          newStats(path),
        ))
          for (const row of rows) for (const k of row.keys) for (const m of counts) shards.shardOf(k, m)
      })
      for (let id = 0; id < values.size; id++)
        for (const m of counts)
          expect(shards.shardOf(id, m), `${thread}: key ${id} mod ${m}`).toBe(values.unsignedMod(id, m))
      expect(() => shards.shardOf(values.size, 7)).toThrow()
      expect(() => shards.shardOf(0, 8)).toThrow()
    }
  })
})

/** A run's outputs: every file's bytes (timings masked in summary.json), its notices and lines, or its error. */
async function runOutputs(
  trace: string,
  onThread: boolean,
  opts: {skipInvalid?: boolean; blockSize?: number; policy?: 'lru' | 'random_lru'},
): Promise<unknown> {
  const out = join(tmp.dir, `out-${files++}`)
  try {
    const r = await withEnv(onThread ? {LMT_SIMULATE_PARSE_THREAD: 'on'} : {LMT_PLAIN: '1'}, () =>
      simulate({
        flags: {
          trace,
          outputDir: out,
          capacityBlocks: 300,
          blockSize: opts.blockSize,
          policy: opts.policy,
        },
        seed: 42n,
        skipInvalid: opts.skipInvalid ?? false,
        strictInstances: false,
        plots: false,
        oracle: 'none',
        keepPointCsv: false,
        version: 'test',
      }),
    )
    const files = outputFiles(out)
    return {files, notices: r.notices, lines: maskedLines(r.lines)}
  } catch (err) {
    return {error: errorFacts(err), left: existsSync(out) ? readdirSync(out) : null}
  }
}

describe('a run parsed on a thread has the same outputs', () => {
  it.each([
    ['sorted, lru', {rows: 5000}, {}],
    ['sorted, random_lru, inferred block size', {rows: 5000}, {policy: 'random_lru'}],
    ['rows out of order (re-read and sorted)', {rows: 5000, unsorted: 0.01}, {blockSize: 16}],
    ['bad rows skipped', {rows: 5000, bad: 0.03}, {skipInvalid: true, blockSize: 16}],
    ['a bad row', {rows: 5000, bad: 0.0005}, {blockSize: 16}],
    ['a block size the trace contradicts', {rows: 5000, otherSize: 0.001}, {blockSize: 16}],
    ['a given block size too large', {rows: 5000}, {blockSize: 64}],
  ] as const)('%s', async (_name, shape, opts) => {
    const trace = writeTrace(traceLines(shape))
    const plain = await runOutputs(trace, false, opts)
    const threaded = await runOutputs(trace, true, opts)
    expect(threaded).toEqual(plain)
  })

  it('the cases above do what they say', async () => {
    const plain = (await runOutputs(writeTrace(traceLines({rows: 5000})), true, {})) as {
      files: Record<string, string>
    }
    expect(Object.keys(plain.files)).toEqual([
      'a_hit_rates.csv',
      'b_hit_rates.csv',
      'c_hit_rates.csv',
      'summary.json',
    ])
    expect(plain.files['summary.json']).toContain('"block_size_source": "inferred"')
    const contradicted = await runOutputs(writeTrace(traceLines({rows: 5000, otherSize: 0.001})), true, {
      blockSize: 16,
    })
    expect(contradicted).toMatchObject({error: {kind: 'SIM_BLOCK_SIZE_MISMATCH'}})
    const resorted = (await runOutputs(writeTrace(traceLines({rows: 5000, unsorted: 0.01})), true, {
      blockSize: 16,
    })) as {notices: Array<{code: string}>}
    expect(resorted.notices.map((n) => n.code)).toContain('LMT_SIM_RESORT')
  })
})

describe('Ctrl-C while the parsing thread runs', () => {
  it('ends the run within a second (exit 130), no temporary left', async () => {
    const dir = join(tmp.dir, 'sigint')
    mkdirSync(dir)
    const trace = writeTrace(traceLines({rows: 60_000}))
    const out = join(dir, 'out')
    // the environment knob forces the thread for a trace this small (the child inherits it)
    process.env.LMT_SIMULATE_PARSE_THREAD = 'on'
    const child = spawnLmt(
      [
        'simulate',
        '--trace',
        trace,
        '-o',
        out,
        '--policy',
        'random_lru',
        '--capacity-blocks',
        '50',
        '--no-plots',
        '-q',
      ],
      ROOT,
    )
    delete process.env.LMT_SIMULATE_PARSE_THREAD
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    let sentAt: number | undefined
    const timer = setInterval(() => {
      // once the play writes its CSV (the parsing thread is then at most a few batches ahead, waiting)
      if (sentAt === undefined && existsSync(out) && readdirSync(out).some((f) => LMT_TEMP.test(f))) {
        sentAt = Date.now()
        child.kill('SIGINT')
      }
    }, 2)
    const code = await new Promise<number | null>((res) => child.on('close', (c) => res(c)))
    clearInterval(timer)
    expect(stderr).toContain('interrupted by SIGINT')
    expect(sentAt).toBeDefined()
    expect(code).toBe(130)
    expect(Date.now() - (sentAt as number)).toBeLessThan(1500) // a second, with room for a loaded machine
    expect(existsSync(out)).toBe(false) // the folder the run made, with no temporary in it
  })
})
