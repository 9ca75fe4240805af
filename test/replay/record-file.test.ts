// The --record file of a replay is whole or absent: a failed write, an abort or a fatal error leaves an earlier file
// at that path as it was, and no temporary file. The --jsonl-out log is kept as far as it got; a failed write is an
// error.
import {mkdirSync, readdirSync, readFileSync, writeFileSync, writeSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {RecordLog} from '../../src/cli/record-log.js'
import {LmtError} from '../../src/errors.js'
import {openTrace} from '../../src/formats/lct/reader.js'
import {replayTrace, type ReplayRunOptions} from '../../src/replay/driver.js'
import {storageLevel} from '../../src/replay/storage/storage-level.js'
import {tempDir} from '../helpers/cli.js'
import {fixtureFlags, join, keys, LAYOUT, type Rec, writeTrace} from './helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const records: Rec[] = []
for (let i = 0; i < 40; i++)
  records.push(
    [i * 0.01, 'reserve_write', {keys: keys(i), layout_desc: LAYOUT, mode: 'new'}],
    [i * 0.01 + 0.005, 'finish_write', {keys: keys(i)}],
  )
const input = writeTrace(join(tmp.dir, 'input.lct'), records)

/** A directory holding an earlier --record file; the options of a replay of `input` recording over it. */
async function setUp(name: string): Promise<{dir: string; out: string; options: ReplayRunOptions<unknown>}> {
  const dir = join(tmp.dir, name)
  const out = join(dir, 'rec.lct')
  mkdirSync(dir, {recursive: true})
  writeFileSync(out, 'the previous recording\n')
  const reader = await openTrace(input)
  const header = reader.header
  await reader.close()
  const config = storageLevel.parseConfig(fixtureFlags, header, () => {})
  const options = {
    file: input,
    level: storageLevel as never,
    config,
    header,
    pace: 'virtual' as const,
    speed: 1,
    recordPath: out,
    warn: () => {},
  }
  return {dir, out, options}
}

function expectUntouched(dir: string, out: string): void {
  expect(readFileSync(out, 'utf8')).toBe('the previous recording\n')
  expect(readdirSync(dir)).toEqual(['rec.lct'])
}

describe('replayTrace --record', () => {
  it('a write that fails (ENOSPC) ends the replay with REPLAY_OUTPUT_FAILED; the old file stays', async () => {
    const {dir, out, options} = await setUp('enospc')
    let writes = 0
    const recordWrite = () => {
      if (++writes >= 3)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'})
    }
    const err = await replayTrace({...options, recordWrite}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LmtError)
    expect((err as LmtError).kind).toBe('REPLAY_OUTPUT_FAILED')
    expect((err as LmtError).message).toBe(
      `cannot write the --record file ${out} (a file already at that path is left as it was): no space left on device (ENOSPC)`,
    )
    // the replay stopped at the failure instead of replaying on into a lost recording
    expect(writes).toBe(3)
    expectUntouched(dir, out)
  })

  it('an abort ends it with INTERRUPTED (or the abort reason) and removes the temporary file at once', async () => {
    const {dir, out, options} = await setUp('abort')
    const controller = new AbortController()
    let seenAtAbort: string[] = []
    const err = await replayTrace({
      ...options,
      signal: controller.signal,
      onRecord: (o) => {
        if (o.index !== 5) return
        controller.abort()
        seenAtAbort = readdirSync(dir) // what a process exiting in its signal handler would leave
      },
    }).catch((e: unknown) => e)
    expect((err as LmtError).kind).toBe('CLI_INTERRUPTED')
    expect(seenAtAbort).toEqual(['rec.lct'])
    expectUntouched(dir, out)
    const reason = new LmtError('REPLAY_OUTPUT_FAILED', 'the log failed')
    const again = new AbortController()
    const err2 = await replayTrace({
      ...options,
      signal: again.signal,
      onRecord: (o) => o.index === 2 && again.abort(reason),
    }).catch((e: unknown) => e)
    expect(err2).toBe(reason)
    expectUntouched(dir, out)
  })

  it('a fatal error during the replay leaves the old file; a replay that completes replaces it', async () => {
    const {dir, out, options} = await setUp('fatal')
    const fatal = new Error('an observer failed')
    const err = await replayTrace({
      ...options,
      onRecord: (o) => {
        if (o.index === 7) throw fatal
      },
    }).catch((e: unknown) => e)
    expect(err).toBe(fatal)
    expectUntouched(dir, out)
    const done = await replayTrace(options)
    expect(done.recordsReplayed).toBe(80)
    expect(readdirSync(dir)).toEqual(['rec.lct'])
    const reader = await openTrace(out)
    let n = 0
    for await (const batch of reader.batches()) n += batch.length
    await reader.close()
    expect(n).toBe(80)
  })
})

describe('the --jsonl-out log', () => {
  it('a failed write is reported once as REPLAY_OUTPUT_FAILED; the lines before it stay, nothing is written after', () => {
    const path = join(tmp.dir, 'log', 'records.jsonl')
    const failures: LmtError[] = []
    let calls = 0
    const log = new RecordLog(
      path,
      (err) => failures.push(err),
      (fd, chunk) => {
        if (++calls === 2)
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'})
        writeSync(fd, chunk)
      },
    )
    const line = 'x'.repeat(1000) + '\n'
    for (let i = 0; i < 200; i++) log.add(line) // about three chunks of 64 KiB
    log.close()
    expect(calls).toBe(2)
    expect(failures).toHaveLength(1)
    expect(log.failed).toBe(failures[0])
    expect(failures[0].kind).toBe('REPLAY_OUTPUT_FAILED')
    expect(failures[0].message).toBe(`cannot write --jsonl-out ${path}: no space left on device (ENOSPC)`)
    const kept = readFileSync(path, 'utf8')
    expect(kept.length).toBeGreaterThan(0)
    expect(kept.endsWith('\n')).toBe(true)
    expect(kept.split('\n').every((l) => l === '' || l === line.trimEnd())).toBe(true)
  })
})
