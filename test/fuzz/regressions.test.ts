// Regression tests from fuzz findings: each input is the failing one (or its essence, where the saved input held
// more than the one offending part).
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {header} from '../formats/lct/helpers.js'
import {FIXTURES, lmt, lmtProcess, tempDir} from '../helpers/cli.js'
import {recordFrame} from './lct-inputs.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const SM = 'lmcache.v1.distributed.storage_manager.StorageManager'
const keys = {
  keys: [{__t__: 'ObjectKey', v: {chunk_hash: Uint8Array.from([1, 2]), model_name: 'm', kv_rank: 0}}],
}

describe('lmcache_lct converter', () => {
  it('a record whose t_wall gives no timestamp (NaN, ±∞, 1e300 s) is counted, not an abort', async () => {
    const input = join(tmp.dir, 'twall.lct')
    const frames = [header()]
    for (const tWall of [NaN, Infinity, -Infinity, 1e300])
      frames.push(recordFrame(`${SM}.submit_prefetch_task`, keys, 0.5, tWall))
    frames.push(recordFrame(`${SM}.finish_write`, keys, 0.6, 1750000000.5))
    writeFileSync(input, Buffer.concat(frames))
    const out = join(tmp.dir, 'twall.jsonl')
    const r = await lmt(['convert', '-i', input, '-f', 'lmcache_lct', '-o', out, '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).inputs[0].notes).toEqual({invalid_time_records: 4})
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^\{"type": "write", "instance_id": "m", .*"timestamp_ns": 1750000000500000000,/)
  })
})

describe('simulate configuration', () => {
  const config = (policyParams: string) => {
    const c = JSON.parse(readFileSync(join(FIXTURES, 'simulate', 'A', 'config.json'), 'utf8'))
    c.trace_file_path = join(FIXTURES, 'simulate', 'A', 'trace.jsonl')
    c.output_result_path = join(tmp.dir, 'sim-out')
    const path = join(tmp.dir, `config-${policyParams.length}.json`)
    writeFileSync(
      path,
      JSON.stringify(c).replace('"eviction_policy_params":{}', `"eviction_policy_params":${policyParams}`),
    )
    return path
  }

  it('nested 200,000 deep in eviction_policy_params: a coded error (exit 2), not a stack overflow', async () => {
    const path = config(`{"x": ${'['.repeat(200_000)}${']'.repeat(200_000)}}`)
    const r = await lmt(['simulate', path, '--json'])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout).error).toEqual({
      code: 'LMT_SIM_CONFIG_TOO_DEEP',
      message: `configuration ${path} nests deeper than 1000 levels`,
      exitCode: 2,
    })
  })

  it('up to 1000 levels run', async () => {
    const r = await lmt(['simulate', config(`{"x": ${'['.repeat(990)}${']'.repeat(990)}}`), '-q'])
    expect(r.exitCode, r.stderr).toBe(0)
  })
})

describe('replay --l2-adapter', () => {
  it('JSON nested 30,000 deep is a coded configuration error (exit 2), not a stack overflow', () => {
    const deep = `{"type": "mock", "max_size_gb": 1, "mock_bandwidth_gb": 1, "x": ${'['.repeat(30_000)}${']'.repeat(30_000)}}`
    const trace = join(FIXTURES, 'lct', 'v2_full_prefetch_cycle.lct')
    const args = ['replay', trace, '--l1-size-gb', '0.0625', '--eviction-policy', 'LRU', '--no-csv', '-q']
    const r = lmtProcess([...args, '--output-dir', join(tmp.dir, 'l2'), '--l2-adapter', deep, '--json'])
    expect(r.exitCode).toBe(2)
    expect(JSON.parse(r.stdout).error).toMatchObject({code: 'LMT_REPLAY_CONFIG'})
    expect(JSON.parse(r.stdout).error.message).toContain('nested deeper than 1000 levels')
  })
})
