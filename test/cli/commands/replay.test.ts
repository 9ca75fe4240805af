import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {reservedReplayFlagNames} from '../../../src/cli/replay-flags.js'
import {discoverLevels} from '../../../src/plugins/replay-levels.js'
import {registerReplayLevel} from '../../../src/plugins/level-registry.js'
import {validatorFor} from '../../../src/schemas.js'
import {MapDispatcher} from '../../../src/replay/level.js'
import {FIXTURES, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'
import {lmtProcessFull} from '../../helpers/faults.js'
import {keys, LAYOUT, writeTrace} from '../../replay/helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
const LCT = join(FIXTURES, 'lct')
const FLAGS = ['--l1-size-gb', '0.0625', '--no-l1-use-lazy', '--eviction-policy', 'LRU']

describe('lmt replay', () => {
  // a disk that takes no byte: the summary files cannot be written
  it('outputs that cannot be written: REPLAY_OUTPUT_FAILED (exit 1), and neither they nor a temporary file is left', () => {
    const out = join(tmp.dir, 'full')
    mkdirSync(out, {recursive: true})
    const r = lmtProcessFull([
      'replay',
      join(LCT, 'v2_full_prefetch_cycle.lct'),
      ...FLAGS,
      '-q',
      '--output-dir',
      out,
    ])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toMatch(/cannot write outputs in .*: file too large \(EFBIG\)/)
    expect(readdirSync(out)).toEqual([])
  })

  it('replays the fixture: table, CSV (CRLF, %.6f, sorted), JSON summary (sorted, indent 2), JSONL', async () => {
    const out = join(tmp.dir, 'out')
    const jsonl = join(tmp.dir, 'j', 'records.jsonl')
    const args = ['replay', join(LCT, 'v2_full_prefetch_cycle.lct'), ...FLAGS, '--output-dir', out]
    const r = await lmt([...args, '--jsonl-out', jsonl])
    expect(r.exitCode).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toBe('===================== Trace Replay Result ======================')
    expect(lines[1]).toBe('--------------------------- Overall ----------------------------')
    expect(lines).toContain('Trace level:                                             storage')
    expect(lines).toContain('Config digest:                                  match (6bddebcb)')
    expect(lines).toContain('Prefetch L1 prefix hits (keys):                                3')
    expect(lines).toContain('L1 peak usage (bytes):                          12288 (12.0 KiB)')
    // the model's section comes before the latency rows (this process's own call cost)
    const model = lines.indexOf('---------------------------- Model -----------------------------')
    const latency = lines.indexOf('--------------- Per-Op Latency (ms, model cost) ----------------')
    expect(model).toBeGreaterThan(1)
    expect(latency).toBeGreaterThan(model)
    expect(lines).toContain('Trace time covered (s):                                     0.20')
    expect(lines[lines.length - 1]).toBe('='.repeat(64))
    expect(lines.every((l) => [...l].length === 64)).toBe(true)
    // the digests match: no mismatch banner
    expect(r.stderr).not.toContain('MISMATCH')
    expect(r.stderr).toBe(`wrote ${join(out, 'trace_replay_ops.csv')}\nwrote ${jsonl} (--jsonl-out)\n`)
    const csv = readFileSync(join(out, 'trace_replay_ops.csv'), 'utf8')
    expect(csv.startsWith('qualname,count,errors,mean_ms,p50_ms,p90_ms,p99_ms,min_ms,max_ms\r\n')).toBe(true)
    const rows = csv.trimEnd().split('\r\n').slice(1)
    expect(rows.map((l) => l.split(',')[0])).toEqual([...rows.map((l) => l.split(',')[0])].sort())
    expect(rows[0]).toMatch(
      /^lmcache\.v1\.distributed\.storage_manager\.StorageManager\.finish_read_prefetched,1,0,\d+\.\d{6},/,
    )
    expect(existsSync(join(out, 'trace_replay_summary.json'))).toBe(false)
    // --json: the summary document on stdout (and in --output-dir), the table not
    const rj = await lmt([...args, '--json'])
    expect(rj.exitCode).toBe(0)
    const summary = readFileSync(join(out, 'trace_replay_summary.json'), 'utf8')
    expect(JSON.parse(rj.stdout)).toEqual(JSON.parse(summary))
    expect(validatorFor('replay-summary.schema.json')(JSON.parse(rj.stdout))).toBe(true)
    expect(rj.stdout).not.toContain('Trace Replay Result')
    // the document says it all: stderr has no informational line
    expect(rj.stderr).toBe('')
    expect(summary.endsWith('}\n')).toBe(true)
    expect(summary).toMatch(
      /^\{\n {2}"duration_s": [0-9.e-]+,\n {2}"latency_source": "lmt-model-cost",\n {2}"model": \{/,
    )
    const doc = JSON.parse(summary)
    expect(doc.model.l1.prefix_hit_keys).toBe(3)
    expect(Object.keys(doc.ops)).toHaveLength(6)
    const jl = readFileSync(jsonl, 'utf8').trim().split('\n')
    expect(jl).toHaveLength(6)
    expect(jl[0]).toMatch(
      /^\{"qualname": "lmcache\.v1\.distributed\.storage_manager\.StorageManager\.reserve_write", "latency_ms": [0-9.e-]+, "failed": false\}$/,
    )
  })

  it('verbose and per-record lines, a mismatching digest row, -q', async () => {
    const r = await lmt([
      'replay',
      join(LCT, 'v2_full_prefetch_cycle.lct'),
      '--l1-size-gb',
      '1',
      '--eviction-policy',
      'LRU',
      '--verbose',
      '--per-record',
    ])
    expect(r.stdout).toMatch(
      /^ {2}\[1\/6\] {2}OK {4} {2} +\d+\.\d{3}ms {2}lmcache\.v1\.distributed\.storage_manager\.StorageManager\.reserve_write$/m,
    )
    expect(r.stderr).toMatch(
      /^\[6\/6\] OK lmcache\.v1\.distributed\.storage_manager\.StorageManager\.finish_read_prefetched \(\d+\.\d{3}ms\)$/m,
    )
    expect(r.stdout).toMatch(/Config digest: +MISMATCH \(rec=6bddebcb, run=[0-9a-f]{8}\)/)
    // a real mismatch: the banner, naming the level and both digests
    expect(r.stderr).toContain('!! REPLAY ENVIRONMENT MISMATCH MAY CAUSE RETRIEVE MISSES !!')
    expect(r.stderr).toMatch(
      /recorded with config digest 6bddebcb; this replay of level\n {4}'storage' runs with [0-9a-f]{8} /,
    )
    const q = await lmt([
      'replay',
      join(LCT, 'v2_full_prefetch_cycle.lct'),
      '--l1-size-gb',
      '1',
      '--eviction-policy',
      'LRU',
      '-q',
    ])
    expect(q.stdout).toBe('')
    expect(q.stderr).toBe('')
  })

  it('per-record lines: on by default only with --pace realtime; -q, --json and --no-per-record turn them off', async () => {
    const base = ['replay', join(LCT, 'v2_full_prefetch_cycle.lct'), ...FLAGS]
    const realtime = [...base, '--pace', 'realtime', '--speed', '100']
    const perRecord = /^\[\d\/6\] OK /m
    const shown = await lmt(realtime)
    expect(shown.exitCode).toBe(0)
    expect(shown.stderr.match(/^\[\d\/6\] OK /gm)).toHaveLength(6)
    for (const extra of [['-q'], ['--json'], ['--no-per-record']]) {
      const r = await lmt([...realtime, ...extra])
      expect(r.exitCode, extra.join(' ')).toBe(0)
      expect(r.stderr, extra.join(' ')).not.toMatch(perRecord)
    }
    expect((await lmt([...realtime, '-q'])).stderr).toBe('')
    expect((await lmt(base)).stderr).not.toMatch(perRecord)
    // --progress is the bar (drawn on a terminal only), as in every command: no per-record lines
    expect((await lmt([...base, '--progress'])).stderr).not.toMatch(perRecord)
  })

  it('writes no file unless asked: the CSV and the summary file only with --output-dir', () => {
    const cwd = join(tmp.dir, 'cwd-untouched')
    mkdirSync(cwd)
    const trace = join(LCT, 'v2_full_prefetch_cycle.lct')
    const r = lmtProcess(['replay', trace, ...FLAGS, '--json'], {cwd})
    expect(r.exitCode).toBe(0)
    expect(JSON.parse(r.stdout).model.l1.prefix_hit_keys).toBe(3)
    expect(r.stderr).toBe('')
    expect(readdirSync(cwd)).toEqual([])
    const withDir = lmtProcess(['replay', trace, ...FLAGS, '--json', '--output-dir', 'replay-out'], {cwd})
    expect(withDir.exitCode).toBe(0)
    expect(readdirSync(join(cwd, 'replay-out')).sort()).toEqual([
      'trace_replay_ops.csv',
      'trace_replay_summary.json',
    ])
  })

  it('--json: errors are the error document on stdout, with the exit code', async () => {
    const isError = validatorFor('error.schema.json')
    for (const [args, code, exit] of [
      [[], 'LMT_REPLAY_NO_TRACE', 2],
      [[join(LCT, 'tally_level.lct'), ...FLAGS], 'LMT_REPLAY_UNKNOWN_LEVEL', 2],
      [[join(LCT, 'bad_magic.lct'), ...FLAGS], 'LMT_LCT_BAD_MAGIC', 1],
      [[join(LCT, 'v2_full_prefetch_cycle.lct'), ...FLAGS, '--bogus'], 'LMT_CLI_USAGE', 2],
    ] as const) {
      const r = await lmt(['replay', ...args, '--json'])
      expect(r.exitCode).toBe(exit)
      const doc = JSON.parse(r.stdout)
      expect(isError(doc)).toBe(true)
      expect(doc.error).toMatchObject({code, exitCode: exit})
      expect(r.stderr).not.toContain('error:')
    }
    // a trace error gives its byte offset and code as lmt trace does
    const bad = JSON.parse((await lmt(['replay', join(LCT, 'bad_magic.lct'), '--json'])).stdout)
    expect(bad.error.offset).toBeTypeOf('number')
    // a failed record: exit 1 and the error document (the outputs are written all the same)
    const p = writeTrace(join(tmp.dir, 'fail-json.lct'), [[0.1, 'finish_write', {keys: keys(0), bogus: 1}]])
    const f = await lmt(['replay', p, ...FLAGS, '--json', '--output-dir', join(tmp.dir, 'fail-json')])
    expect(f.exitCode).toBe(1)
    expect(JSON.parse(f.stdout).error.code).toBe('LMT_REPLAY_RECORDS_FAILED')
    expect(existsSync(join(tmp.dir, 'fail-json', 'trace_replay_summary.json'))).toBe(true)
  })

  it('--level: a misspelt level gets a did-you-mean and a hint naming lmt levels; another level a hint', async () => {
    const fixture = join(LCT, 'v2_full_prefetch_cycle.lct')
    const r = await lmt(['replay', fixture, ...FLAGS, '--level', 'storag', '--no-csv'])
    expect(r.exitCode).toBe(2)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(
      /^error: unknown replay level 'storag' \(did you mean 'storage'\?\); known levels: .*storage/,
    )
    expect(lines[1]).toBe("hint: `lmt levels` lists the replay levels; this trace's level is 'storage'")
    const doc = JSON.parse((await lmt(['replay', fixture, ...FLAGS, '--level', 'storag', '--json'])).stdout)
    expect(doc.error).toMatchObject({code: 'LMT_REPLAY_UNKNOWN_LEVEL', exitCode: 2})
    expect(`hint: ${doc.error.hint}`).toBe(lines[1])
    const far = await lmt(['replay', fixture, ...FLAGS, '--level', 'zzzzzz', '--no-csv'])
    expect(far.stderr).not.toContain('did you mean')
    expect(far.stderr).toContain('hint: `lmt levels` lists the replay levels')
  })

  it('--max-frame-bytes out of its range is a coded usage error naming the range', async () => {
    const fixture = join(LCT, 'v2_full_prefetch_cycle.lct')
    const r = await lmt(['replay', fixture, ...FLAGS, '--max-frame-bytes', '9999999999', '--no-csv'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      'error: --max-frame-bytes must be an integer from 1024 to 1073741824 (1 GiB); got 9999999999',
    )
    const j = await lmt(['replay', fixture, ...FLAGS, '--max-frame-bytes', '9999999999', '--json'])
    expect(JSON.parse(j.stdout).error).toMatchObject({code: 'LMT_CLI_OUT_OF_RANGE', exitCode: 2})
    const ok = await lmt(['replay', fixture, ...FLAGS, '--max-frame-bytes', '1073741824', '-q', '--no-csv'])
    expect(ok.exitCode).toBe(0)
    const info = await lmt(['trace', 'info', fixture, '--max-frame-bytes', '9999999999'])
    expect(info.exitCode).toBe(2)
  })

  it.each([
    [['v1_reserve_finish.lct'], 2, 'trace_schema_version 1 is not replay-safe'],
    [['tally_level.lct'], 2, "unknown replay level 'tally'; known levels: events, storage"],
    [
      ['v2_full_prefetch_cycle.lct', '--level', 'events'],
      2,
      "trace level is 'storage' but --level events was given",
    ],
    [
      ['v2_full_prefetch_cycle.lct', '--level', 'mq'],
      2,
      "unknown replay level 'mq'; known levels: events, storage",
    ],
    [['v0_pr1_lmcache_version_header.lct'], 2, 'first LMCache trace recorder'],
    [['bad_magic.lct'], 1, 'bad magic'],
    [['v2_full_prefetch_cycle.lct', '--speed', '2'], 2, '--speed applies to --pace realtime only'],
    [
      ['v2_full_prefetch_cycle.lct', '--eviction-policy', 'IsolatedLRU'],
      2,
      "eviction policy 'IsolatedLRU' is not yet supported",
    ],
    [
      ['v2_full_prefetch_cycle.lct', '--l2-adapter', '{"type":"fs"}'],
      2,
      "--l2-adapter #1: unsupported L2 adapter type 'fs' (this build models: mock)",
    ],
  ])('%j exits %i', async (args, exit, message) => {
    const [file, ...rest] = args
    const extra = rest.includes('--eviction-policy') ? ['--l1-size-gb', '1'] : FLAGS
    const r = await lmt(['replay', join(LCT, file), ...extra, ...rest, '-q', '--no-csv'])
    expect(r.exitCode).toBe(exit)
    expect(r.stderr).toContain(message)
  })

  it('schema 1 replays with --allow-schema-1 (warning), codec shapes are skipped, not failed', async () => {
    const r = await lmt([
      'replay',
      join(LCT, 'v1_reserve_finish.lct'),
      ...FLAGS,
      '--allow-schema-1',
      '--no-csv',
    ])
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toContain('replaying a schema-1 trace')
    expect(r.stdout).toContain('Records replayed:                                              2')
    const s = await lmt(['replay', join(LCT, 'v2_all_codec_shapes.lct'), ...FLAGS, '--no-csv'])
    expect(s.exitCode).toBe(0)
    expect(s.stdout).toContain('Skipped: no_handler:                                           1')
  })

  it('a malformed frame and a truncated tail are warned about with their offsets, and the replay goes on', async () => {
    // two frames of the fixture made invalid msgpack (0xc1 is never valid), and its last frame cut short
    const bytes = Buffer.from(readFileSync(join(LCT, 'v2_full_prefetch_cycle.lct')))
    const starts: number[] = []
    for (let p = 4 + bytes.readUInt32BE(0); p < bytes.length; p += 4 + bytes.readUInt32BE(p)) starts.push(p)
    bytes[starts[1] + 4] = 0xc1
    bytes[starts[2] + 4] = 0xc1
    const p = join(tmp.dir, 'corrupt.lct')
    writeFileSync(p, bytes.subarray(0, bytes.length - 3))
    const r = await lmt(['replay', p, ...FLAGS, '--no-csv'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('Records replayed:                                              3')
    expect(r.stderr).toContain(`warning: skipping malformed record at offset ${starts[1]} (frame length`)
    expect(r.stderr).toContain('warning: 1 more of: LMT_LCT_MALFORMED_RECORD')
    expect(r.stderr).toContain(`warning: truncated frame body at offset ${starts[5] + 4} (got`)
  })

  it('records whose arguments do not decode are skipped and counted, with their offset and reason', async () => {
    // wire wrappers written as they are (the encoder copies plain objects): values no codec accepts
    const badLayout = {__t__: 'MemoryLayoutDesc', v: {shapes: [[16, 16]], dtypes: [{}]}}
    const p = writeTrace(join(tmp.dir, 'bad-args.lct'), [
      [0.1, 'reserve_write', {keys: keys(0), layout_desc: badLayout, mode: 'new'}],
      [0.2, 'finish_write', {keys: {__t__: {x: 1}, v: 1}}],
      [0.3, 'finish_write', {keys: keys(0), mode: {__t__: 'PrefetchMode', v: {}}}],
      [0.4, 'reserve_write', {keys: keys(1), layout_desc: LAYOUT, mode: 'new'}],
    ])
    const bytes = readFileSync(p)
    const offsets: number[] = []
    for (let o = 4 + bytes.readUInt32BE(0); o < bytes.length; o += 4 + bytes.readUInt32BE(o)) offsets.push(o)
    const r = await lmt(['replay', p, ...FLAGS, '--no-csv', '--json', '--output-dir', tmp.dir])
    expect(r.exitCode).toBe(0)
    expect(JSON.parse(r.stdout).model.skipped).toEqual({decode_error: 2, unknown_tag: 1, no_handler: {}})
    const SM = 'lmcache.v1.distributed.storage_manager.StorageManager'
    expect(r.stderr).toContain(
      `warning: cannot decode args of record 1 at offset ${offsets[0]} (${SM}.reserve_write): trace.codecs: unknown torch dtype 'a map'; skipping`,
    )
    expect(r.stderr).toContain(
      `warning: cannot decode args of record 2 at offset ${offsets[1]} (${SM}.finish_write): trace.codecs: unknown tag 'a map'; skipping`,
    )
    expect(r.stderr).toContain(
      `warning: cannot decode args of record 3 at offset ${offsets[2]} (${SM}.finish_write): trace.codecs: PrefetchMode: unknown mode 'a map'; skipping`,
    )
    const t = await lmt(['replay', p, ...FLAGS, '--no-csv'])
    expect(t.stdout).toContain('Records replayed:                                              1')
    expect(t.stdout).toContain('Records skipped:                                               3')
  })

  it('exit 1 when a record failed; the output directory exists before the replay', async () => {
    const p = writeTrace(join(tmp.dir, 'fail.lct'), [[0.1, 'finish_write', {keys: keys(0), bogus: 1}]])
    const out = join(tmp.dir, 'made-before')
    const r = await lmt(['replay', p, ...FLAGS, '--output-dir', out])
    expect(r.exitCode).toBe(1)
    expect(existsSync(join(out, 'trace_replay_ops.csv'))).toBe(true)
  })

  it('--config-from-header takes the header config; a placeholder header has none', async () => {
    const r = await lmt([
      'replay',
      join(LCT, 'v2_full_prefetch_cycle.lct'),
      '--config-from-header',
      '--no-csv',
    ])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('match (6bddebcb)')
    const p = writeTrace(join(tmp.dir, 'placeholder.lct'), [[0.1, 'finish_write', {keys: keys(0)}]])
    expect((await lmt(['replay', p, '--config-from-header'])).exitCode).toBe(2)
  })

  it('a missing storage flag says what to give: the flag, or the header configuration', async () => {
    const r = await lmt(['replay', join(LCT, 'v2_full_prefetch_cycle.lct'), '--l1-size-gb', '1'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain(
      'error: missing required flag --eviction-policy (or --config-from-header)\nhint: --eviction-policy LRU (or noop)\nhint: or --config-from-header: the configuration the trace was recorded with\n',
    )
  })

  it('--pace realtime waits for the recorded gaps (scaled by --speed)', async () => {
    const p = writeTrace(join(tmp.dir, 'slow.lct'), [
      [0.0, 'reserve_write', {keys: keys(0), layout_desc: LAYOUT, mode: 'new'}],
      [0.5, 'finish_write', {keys: keys(0)}],
    ])
    const t0 = performance.now()
    const r = lmtProcess([
      'replay',
      p,
      ...FLAGS,
      '--pace',
      'realtime',
      '--speed',
      '50',
      '-q',
      '--no-csv',
      '--no-progress',
    ])
    const ms = performance.now() - t0
    expect(r.exitCode).toBe(0)
    expect(ms).toBeGreaterThanOrEqual(9)
  })

  it('--list-levels shows the built-in level and its flags', async () => {
    const r = await lmt(['replay', '--list-levels'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatch(/^storage {2}built-in {2}LMCache's StorageManager/m)
    expect(r.stdout).toMatch(/^events {3}built-in {2}LMCache cache events/m) // the columns aligned
    expect(r.stdout).toContain('--l1-size-gb')
  })

  it('--list-levels --json prints the document of lmt levels --json, byte for byte', async () => {
    const listed = lmtProcess(['replay', '--list-levels', '--json'])
    const levels = lmtProcess(['levels', '--json'])
    expect(listed.exitCode).toBe(0)
    expect(levels.exitCode).toBe(0)
    expect(listed.stdout).toBe(levels.stdout)
    const doc = JSON.parse(listed.stdout) as {levels: Array<Record<string, unknown>>; warnings: string[]}
    expect(Object.keys(doc)).toEqual(['levels', 'warnings'])
    expect(doc.levels.find((l) => l.name === 'storage')).toMatchObject({
      source: 'built-in',
      replayableSchemaVersions: [2],
    })
  })
})

describe('replay-level registry', () => {
  it('registers levels programmatically; a flag colliding with a base flag is refused with a warning', async () => {
    const level = {
      name: 'toy',
      description: 'a test level',
      flags: {},
      replayableSchemaVersions: [2],
      parseConfig: () => ({}),
      createTarget: () => ({}),
      buildDispatcher: () => new MapDispatcher(),
    }
    registerReplayLevel(level, 'test')
    registerReplayLevel({...level, name: 'clash', flags: {pace: {}}}, 'test')
    const warnings: string[] = []
    const reg = await discoverLevels(undefined, (w) => warnings.push(w), reservedReplayFlagNames())
    expect(reg.names()).toEqual(['events', 'storage', 'toy'])
    expect(warnings).toEqual([
      'replay level "clash" from test: flag --pace collides with a base flag of lmt replay; level not registered',
    ])
  })
})

describe('binaryBytes', () => {
  it('three significant digits in binary units', async () => {
    const {binaryBytes} = await import('../../../src/cli/trace-report.js')
    expect(binaryBytes(0)).toBe('0 B')
    expect(binaryBytes(1023)).toBe('1023 B')
    expect(binaryBytes(1536)).toBe('1.50 KiB')
    expect(binaryBytes(12288)).toBe('12.0 KiB')
    expect(binaryBytes(68702699520)).toBe('64.0 GiB')
    expect(binaryBytes(14487587389440)).toBe('13.2 TiB')
    expect(binaryBytes(200 * 2 ** 20)).toBe('200 MiB')
  })
})
