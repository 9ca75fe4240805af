// Regression tests from fuzz findings: each input is the failing one (or its essence, where the saved input held
// more than the one offending part).
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {header} from '../lct/helpers.js'
import {lmt, tempDir} from '../helpers/cli.js'
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
