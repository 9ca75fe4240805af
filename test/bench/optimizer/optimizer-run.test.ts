// The side-by-side bench's adapters (the bench itself needs the Optimizer's binary and never runs in the suite).
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {adaptTrace, hitRows, writeOptimizerConfig} from './optimizer-run.js'

const dir = mkdtempSync(join(tmpdir(), 'lmt-optimizer-run-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('the Optimizer side-by-side adapters', () => {
  it('rename timestamp_ns to timestamp_us and drop the gets’ input_len, nothing else', () => {
    const src = join(dir, 'trace.jsonl')
    writeFileSync(
      src,
      '{"type": "get", "instance_id": "i", "timestamp_ns": 5, "keys": [-1, 2], "input_len": 1024, "query_type": "prefix_match", "block_mask": []}\n' +
        '{"type": "write", "instance_id": "i", "timestamp_ns": 6, "keys": [-1, 2]}\n',
    )
    adaptTrace(src, join(dir, 'adapted.jsonl'))
    expect(readFileSync(join(dir, 'adapted.jsonl'), 'utf8')).toBe(
      '{"type": "get", "instance_id": "i", "timestamp_us": 5, "keys": [-1, 2], "query_type": "prefix_match", "block_mask": []}\n' +
        '{"type": "write", "instance_id": "i", "timestamp_us": 6, "keys": [-1, 2]}\n',
    )
  })

  it('write a configuration whose quota counts blocks, with one storage (the snapshot skips a group without)', () => {
    const config = JSON.parse(
      readFileSync(writeOptimizerConfig(dir, '/t.jsonl', 'random_lru', 17090), 'utf8'),
    )
    expect(config.trace_type).toBe('optimizer_schema')
    expect(config.eviction_params).toEqual({eviction_mode: 3, eviction_batch_size_per_instance: 100})
    const group = config.instance_groups[0]
    expect([group.quota_capacity, group.storages.length, group.instances[0].eviction_policy_type]).toEqual([
      17090,
      1,
      'random_lru',
    ])
  })

  it('read the same three columns out of either CSV, by name and with the Optimizer’s spaces', () => {
    const ours = join(dir, 'ours.csv')
    writeFileSync(ours, 'TimestampNs,CachedBlocks,ReadBlocks,HitBlocks\n0,0,13,0\n2,13,14,1\n')
    const theirs = join(dir, 'theirs.csv')
    writeFileSync(
      theirs,
      'TimestampUs,CachedBlocksCurrentInstance,TotalReadBlocks,ExternalHitBlocks\n0, 0, 13, 0\n2, 13, 14, 1\n',
    )
    const a = hitRows(ours, ['CachedBlocks', 'ReadBlocks', 'HitBlocks'])
    expect(a).toEqual(['0 13 0', '13 14 1'])
    expect(hitRows(theirs, ['CachedBlocksCurrentInstance', 'TotalReadBlocks', 'ExternalHitBlocks'])).toEqual(
      a,
    )
    expect(() => hitRows(ours, ['CachedBlocks', 'ReadBlocks', 'Nope'])).toThrow(/no column/)
  })
})
