// simulate's console text comes from one renderer (src/simulate/output/console.ts): hand-computed lines, and the
// command printing only what it is given.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {SimConfig} from '../../../src/simulate/config/config.js'
import {
  beladyOracleLine,
  blockSizeLines,
  consoleText,
  infiniteOracleLine,
  renderTable,
  runLine,
  sweepBeladySuffix,
  sweepFooterLines,
  sweepPointLine,
} from '../../../src/simulate/output/console.js'
import {ROOT} from '../../helpers/cli.js'

const cfg = (capacityBlocks: number): SimConfig => ({
  trace_file_path: 't.jsonl',
  output_result_path: 'out',
  eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
  trace_replay: {mode: 'read_write', write_delay_ns: 1},
  instance_groups: [
    {group_name: 'default', used_percentage: 1, quota_capacity_blocks: capacityBlocks, instances: []},
  ],
})

describe('simulate console text', () => {
  it('notices to stderr as level: message [CODE]; the table, the lines and the output folder to stdout', () => {
    const text = consoleText(
      [{code: 'LMT_SIM_DEFAULT', level: 'notice', message: 'x not set'}],
      ['table'],
      ['a line'],
      '/tmp/out',
    )
    expect(text).toEqual({
      notices: ['notice: x not set [LMT_SIM_DEFAULT]'],
      lines: ['table', 'a line', 'outputs in /tmp/out'],
    })
  })

  it('a run line: 3 of 4 input tokens hit in 2 requests, 1.5 M lookups/s', () => {
    const line = runLine(
      't.jsonl',
      'lru',
      cfg(100),
      {get_rows: 2, token_hit_rate: 0.75, block_hit_rate: 0.5},
      1.5e6,
    )
    expect(line).toBe(
      't.jsonl lru cache size 100 blocks, 2 req, token hit rate 0.75, block hit rate 0.5, throughput 1.50 M lookups/s',
    )
  })

  it('oracle, sweep and block-size lines', () => {
    expect(infiniteOracleLine('g', 0.5)).toBe('oracle infinite: group g token hit rate 0.5')
    expect(beladyOracleLine('g', 0.25, null, 'blocks')).toBe(
      'oracle belady: group g token hit rate 0.25 at cache size inf',
    )
    expect(beladyOracleLine('g', 0.25, 64, 'blocks')).toBe(
      'oracle belady: group g token hit rate 0.25 at cache size 64 blocks',
    )
    expect(beladyOracleLine('g', 0.25, 2 ** 36, 'bytes')).toBe(
      'oracle belady: group g token hit rate 0.25 at cache size 68719476736 bytes',
    )
    expect(sweepPointLine({blocks: 8}, 'lru', 0.125, true) + sweepBeladySuffix(0.5)).toBe(
      'capacity 8 blocks: lru token hit rate 0.125 (stack pass), Belady 0.5',
    )
    expect(sweepPointLine({gb: 1.5}, 'lru', 0.125, false)).toBe('capacity 1.5 GiB: lru token hit rate 0.125')
    const sizes = Array.from({length: 12}, (_, i) => `size ${i}`)
    expect(blockSizeLines(sizes)).toEqual([
      ...sizes.slice(0, 10),
      '(the block sizes of 2 more instances: summary.json)',
    ])
    expect(
      sweepFooterLines({
        infiniteRate: 0.5,
        wss: 10,
        stack: {eligible: true, reason: null},
        points: 3,
        played: 1,
        traceName: 't.jsonl',
        groupName: 'g',
        threads: 2,
        lookupsPerSecond: 2e6,
      }),
    ).toEqual([
      'infinite capacity: token hit rate 0.5 (working set 10 blocks)',
      'one-pass stack method: 2 of 3 points taken from it, the others replayed',
      't.jsonl sweep of group g: 3 points, aggregate over 2 threads 2.00 M lookups/s',
    ])
  })

  it('the table: one row per instance and a total row, numbers right-aligned', () => {
    const counts = {
      get_rows: 2,
      read_blocks: 4,
      hit_blocks: 3,
      token_hit_rate: 0.75,
      local_token_hit_rate: 0.75,
      remote_token_hit_rate: 0,
      evictions: 1,
      final_cached_blocks: 10,
    }
    const table = renderTable({
      groups: [{group_name: 'g', totals: counts}],
      instances: [{group_name: 'g', instance_id: 'i', policy: 'lru', ...counts}],
    })
    expect(table).toHaveLength(3)
    expect(table[1].split(/ {2,}/)).toEqual(['g', 'i', 'lru', '2', '4', '3', '0.75', '0.75', '0', '1', '10'])
    expect(table[2].split(/ {2,}/)[1]).toBe('*')
  })

  it('the command renders nothing itself: no result text in src/cli/commands/simulate.ts', () => {
    const command = readFileSync(join(ROOT, 'src', 'cli', 'commands', 'simulate.ts'), 'utf8')
    for (const phrase of [
      'outputs in ',
      'M lookups/s',
      'oracle infinite',
      'oracle belady',
      '.level}: ',
      'formatG(',
    ])
      expect(command.includes(phrase), phrase).toBe(false)
    expect(command).toContain('consoleText(')
  })
})
