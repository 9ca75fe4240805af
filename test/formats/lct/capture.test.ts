import {spawnSync} from 'node:child_process'
import * as fs from 'node:fs'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {installTracing, isTracingEnabled, publishCallEvent, traced} from '../../../src/formats/lct/capture.js'
import {decodeArgs} from '../../../src/formats/lct/codecs.js'
import {openTrace} from '../../../src/formats/lct/reader.js'
import {configDigest, type Clock, TraceRecorder} from '../../../src/formats/lct/recorder.js'
import {ObjectKey} from '../../../src/formats/lct/values.js'
import {JsonFloat} from '../../../src/formats/json/json-float.js'
import {ROOT, tempDir} from '../../helpers/cli.js'
import {fixture} from './helpers.js'

const tmp = tempDir()
let n = 0
const path = () => join(tmp.dir, `t${n++}.lct`)
const fakeClock = (mono = 100, wall = 1750000000): Clock & {advance(s: number): void} => {
  let m = mono
  let w = wall
  return {mono: () => m, wall: () => w, advance: (s) => ((m += s), (w += s))}
}

class Store {
  calls: unknown[] = []
  reserve(keys: unknown, layout?: unknown, mode?: unknown) {
    this.calls.push([keys, layout, mode])
    return 'ok'
  }
  fail(_x: unknown) {
    throw new Error('boom')
  }
  submit(keys: unknown, _layout?: unknown, extra?: unknown, ext?: unknown) {
    return [keys, extra, ext]
  }
}
installTracing(Store.prototype, 'pkg.Store', {
  reserve: {method: 'reserve_write', params: ['keys', 'layout_desc', 'mode']},
  fail: {params: ['x']},
  submit: {
    method: 'submit_prefetch_task',
    params: [
      'keys',
      'layout_desc',
      {name: 'extra_count', default: 0},
      {name: 'external_request_id', default: ''},
    ],
  },
})

async function records(p: string) {
  const r = await openTrace(p)
  const out = []
  for await (const x of r) out.push({...x, args: decodeArgs(x.args)})
  return {header: r.header, records: out}
}

describe('tracing gate and wrapper', () => {
  it('is off by default; when off a traced method only calls through', () => {
    expect(isTracingEnabled()).toBe(false)
    const s = new Store()
    expect(s.reserve([1])).toBe('ok')
    expect((Store.prototype.reserve as unknown as {traceQualname: string}).traceQualname).toBe(
      'pkg.Store.reserve_write',
    )
    expect(() => publishCallEvent('x', {})).not.toThrow()
  })

  it('captures by parameter name in order, fills defaults, omits absent ones, records throwing calls', async () => {
    const p = path()
    const clock = fakeClock()
    const rec = new TraceRecorder({path: p, clock})
    expect(isTracingEnabled()).toBe(true)
    const s = new Store()
    s.reserve(['k'], undefined, 'new')
    clock.advance(0.25)
    s.submit(['k'])
    expect(() => s.fail(5)).toThrow('boom')
    rec.close()
    expect(isTracingEnabled()).toBe(false)
    const {records: rs, header} = await records(p)
    expect(header.isPlaceholder).toBe(true)
    expect(rs.map((r) => [r.qualname, Object.keys(r.args), r.tMono])).toEqual([
      ['pkg.Store.reserve_write', ['keys', 'mode'], 0],
      ['pkg.Store.submit_prefetch_task', ['keys', 'extra_count', 'external_request_id'], 0.25],
      ['pkg.Store.fail', ['x'], 0.25],
    ])
    expect(rs[1].args.extra_count).toBe(0)
  })

  it('applies capture and redact lists; the two-argument form wraps a function', async () => {
    const p = path()
    const rec = new TraceRecorder({path: p, clock: fakeClock()})
    const f = traced(
      {qualname: 'pkg.f', params: ['a', 'b', 'secret'], capture: ['a', 'secret'], redact: ['secret']},
      (a: number, b: number) => a + b,
    )
    expect(f(1, 2)).toBe(3)
    rec.close()
    const {records: rs} = await records(p)
    expect(rs[0].args).toEqual(Object.assign(Object.create(null), {a: 1}))
  })
})

describe('TraceRecorder', () => {
  it('deferred header: attachConfig first gives the real header; a second attach is ignored', async () => {
    const p = path()
    const rec = new TraceRecorder({path: p, clock: fakeClock(), capturesCalls: false})
    rec.attachConfig({a: new JsonFloat(0.5), b: [1, 'x']})
    rec.attachConfig({other: 1})
    rec.writeRecord('q', {keys: [new ObjectKey(Uint8Array.from([1]), 'm', 0)]}, 101, 1750000001)
    rec.close()
    rec.close()
    const {header, records: rs} = await records(p)
    expect(header.smConfigJson).toBe('{"a": 0.5, "b": [1, "x"]}')
    expect(header.isPlaceholder).toBe(false)
    expect(rs[0].tMono).toBe(1)
    expect((rs[0].args.keys as ObjectKey[])[0].id).toBe('01:0:0:1:m:')
    expect(rec.recordsWritten).toBe(1)
  })

  it('close without anything writes the placeholder header only (the fixture with schema 2 and its times)', () => {
    const p = path()
    const rec = new TraceRecorder({
      path: p,
      clock: fakeClock(12345.678, 1750000000.125),
      capturesCalls: false,
    })
    rec.close()
    const expected = Buffer.from(fixture('v1_header_only_placeholder.lct'))
    const schemaAt = expected.indexOf(Buffer.from('trace_schema_version')) + 'trace_schema_version'.length
    expected[schemaAt] = 2
    expect(readFileSync(p).equals(expected)).toBe(true)
  })

  it('drops and counts unencodable records and records after close; the traced method still runs', () => {
    const p = path()
    const warnings: string[] = []
    const rec = new TraceRecorder({path: p, clock: fakeClock(), onWarning: (w) => warnings.push(w)})
    const s = new Store()
    expect(s.reserve(new Map([['a', 1]]))).toBe('ok')
    expect(rec.droppedCount).toBe(1)
    expect(warnings[0]).toMatch(
      /^dropping trace record for pkg\.Store\.reserve_write: trace\.codecs: no codec registered for type 'Map'/,
    )
    rec.close()
    rec.writeRecord('q', {}, 0, 0)
    expect(rec.droppedCount).toBe(2)
  })

  it('t_mono is relative and never negative; one write per frame', async () => {
    const p = path()
    const writes: number[] = []
    const rec = new TraceRecorder({
      path: p,
      clock: fakeClock(),
      capturesCalls: false,
      write: (fd, bytes) => {
        writes.push(bytes.length)
        fs.writeSync(fd, bytes)
      },
    })
    rec.writeRecord('early', {}, 50, 0)
    rec.writeRecord('late', {pad: 'x'.repeat(5000)}, 102, 0)
    rec.close()
    const {records: rs} = await records(p)
    expect(rs.map((r) => r.tMono)).toEqual([0, 2])
    expect(writes).toHaveLength(3) // placeholder header + 2 frames, each whole
    expect(writes.reduce((a, b) => a + b, 0)).toBe(readFileSync(p).length)
  })

  it('chunked mode (ours): the same bytes in fewer writes; a failed chunk is counted as dropped', () => {
    const run = (chunkBytes: number | undefined, fail = false) => {
      const p = path()
      let writes = 0
      const rec = new TraceRecorder({
        path: p,
        clock: fakeClock(),
        capturesCalls: false,
        chunkBytes,
        write: (fd, bytes) => {
          writes++
          if (fail && writes > 1) throw new Error('disk full')
          fs.writeSync(fd, bytes)
        },
      })
      rec.attachConfig({a: 1})
      for (let i = 0; i < 50; i++) rec.writeRecord(`op${i % 3}`, {i, pad: 'y'.repeat(i * 40)}, 100 + i, 0)
      rec.writeRecord('big', {pad: 'z'.repeat(9000)}, 200, 0) // larger than a chunk: written on its own
      rec.close()
      return {bytes: readFileSync(p), writes, written: rec.recordsWritten, dropped: rec.droppedCount}
    }
    const plain = run(undefined)
    const chunked = run(4096)
    expect(chunked.bytes.equals(plain.bytes)).toBe(true)
    expect(plain.writes).toBe(52)
    expect(chunked.writes).toBeLessThan(plain.writes / 3)
    expect(chunked.written).toBe(51)
    const failing = run(4096, true)
    expect(failing.written + failing.dropped).toBe(51)
    expect(failing.dropped).toBeGreaterThan(0)
  })

  it('a second capturing recorder is an error', () => {
    const a = new TraceRecorder({path: path(), clock: fakeClock()})
    expect(() => new TraceRecorder({path: path(), clock: fakeClock()})).toThrow(/already active/)
    a.close()
  })

  it('a recorder killed mid-run leaves a file that reads back with a truncated tail warning at most', async () => {
    const p = path()
    const script = `
      import {TraceRecorder} from ${JSON.stringify(join(ROOT, 'dist/src/formats/lct/recorder.js'))}
      const r = new TraceRecorder({path: ${JSON.stringify(p)}, capturesCalls: false})
      r.attachConfig({x: 1})
      for (let i = 0; i < 200; i++) r.writeRecord('q', {i, pad: 'x'.repeat(500)}, performance.now() / 1000, Date.now() / 1000)
      process.kill(process.pid, 'SIGKILL')`
    spawnSync(process.execPath, ['--input-type=module', '-e', script])
    const {records: rs} = await records(p)
    expect(rs).toHaveLength(200)
    // cut the file mid-frame, as a crash during a write would
    const bytes = readFileSync(p)
    fs.writeFileSync(p, bytes.subarray(0, bytes.length - 100))
    const r = await openTrace(p)
    let k = 0
    for await (const _ of r) k++
    expect(k).toBe(199)
    expect(r.state.truncated).toBe(true)
  })
})

describe('config digest (§6.6)', () => {
  it('reproduces the fixture digest', () => {
    const cfg = {
      l1_manager_config: {
        memory_config: {
          size_in_bytes: 67108864,
          init_size_in_bytes: 67108864,
          use_lazy: false,
          align_bytes: 4096,
        },
        write_ttl_seconds: 600,
        read_ttl_seconds: 300,
      },
      eviction_config: {
        eviction_policy: 'LRU',
        trigger_watermark: new JsonFloat(0.8),
        eviction_ratio: new JsonFloat(0.2),
      },
      l2_adapter_config: {adapters: []},
      store_policy: 'default',
      prefetch_policy: 'default',
      prefetch_max_in_flight: 8,
    }
    const {json, digest} = configDigest(cfg)
    expect(json).toBe(
      '{"eviction_config": {"eviction_policy": "LRU", "eviction_ratio": 0.2, "trigger_watermark": 0.8}, "l1_manager_config": {"memory_config": {"align_bytes": 4096, "init_size_in_bytes": 67108864, "size_in_bytes": 67108864, "use_lazy": false}, "read_ttl_seconds": 300, "write_ttl_seconds": 600}, "l2_adapter_config": {"adapters": []}, "prefetch_max_in_flight": 8, "prefetch_policy": "default", "store_policy": "default"}',
    )
    expect(digest).toBe('6bddebcb6e17a2fd0b9b5ac9aa8984f6d2e17e3914b2274ec67ba18d084e19e5')
  })
})
