import {describe, expect, it} from 'vitest'
import {
  BlockSizeFit,
  chooseBlockSize,
  rowBlockSizes,
  settleBlockSizes,
} from '../../../src/simulate/input/block-size.js'
import type {ResolvedConfig} from '../../../src/simulate/config/config.js'
import {isLmtError} from '../../../src/errors.js'

/** A fit of rows given as [keys, input_len], numbered from line 1. */
function fitOf(rows: Array<[number, number]>): BlockSizeFit {
  const f = new BlockSizeFit()
  rows.forEach(([k, len], i) => f.add(k, len, i + 1))
  return f
}

const range = (f: BlockSizeFit) => [f.lo, f.hi]

function quick(blockSize?: number): ResolvedConfig {
  return {
    config: {
      trace_file_path: 't.jsonl',
      output_result_path: 'o',
      eviction_params: {eviction_mode: 3, eviction_batch_size_per_instance: 100},
      trace_replay: {mode: 'read_write', write_delay_ns: 1},
      instance_groups: [{group_name: 'default', used_percentage: 1, instances: []}],
    },
    notices: [],
    quick: true,
    quickInstance: {block_size: blockSize ?? 16, eviction_policy_type: 'lru', eviction_policy_params: {}},
    blockSizeGiven: new Map(),
    quickBlockSizeGiven: blockSize !== undefined,
  }
}

function thrown(f: () => unknown): {code: string; message: string; suggestions: readonly string[]} {
  try {
    f()
  } catch (err) {
    if (isLmtError(err)) return err
    throw err
  }
  throw new Error('no error')
}

describe('the block sizes a row allows: ⌊input_len / b⌋ = keys', () => {
  it('gives L/(k+1) < b ≤ L/k, hand-computed', () => {
    // 13 keys, 6758 tokens: 6758/14 = 482.7 < b ≤ 6758/13 = 519.8
    expect(rowBlockSizes(13, 6758)).toEqual([483, 519])
    // 3 keys, 12 tokens: 3 < b ≤ 4
    expect(rowBlockSizes(3, 12)).toEqual([4, 4])
    // 1 key, 7 tokens: 3.5 < b ≤ 7
    expect(rowBlockSizes(1, 7)).toEqual([4, 7])
    // no keys: no constraint (a source may drop keys)
    expect(rowBlockSizes(0, 100)).toBeUndefined()
  })

  it("intersects an instance's rows; rows without keys do not count", () => {
    const f = fitOf([
      [13, 6758], // 483–519
      [14, 7322], // 7322/15 = 488.1 < b ≤ 523
      [0, 50],
      [4, 2290], // 458 < b ≤ 572
    ])
    expect(range(f)).toEqual([489, 519])
    expect(f.rows).toBe(3)
    expect([f.loLine, f.hiLine]).toEqual([2, 1])
    expect(f.fits(512) && !f.fits(488) && !f.fits(520)).toBe(true)
  })

  it('no constraining row: unchecked', () => {
    expect(fitOf([]).unchecked).toBe(true)
    expect(fitOf([[0, 9]]).unchecked).toBe(true)
  })

  it('rows that fit no single size: inconsistent', () => {
    // 2 keys of 8 tokens: 3 or 4; 2 keys of 12 tokens: 5 or 6
    const f = fitOf([
      [2, 8],
      [2, 12],
    ])
    expect(range(f)).toEqual([5, 4])
    expect(f.consistent).toBe(false)
  })
})

describe('choosing among fitting block sizes: the most factors of two, the larger on a tie', () => {
  it.each([
    [483, 519, 512],
    [400, 1100, 1024],
    [97, 103, 100],
    [11, 16, 16],
    [13, 15, 14],
    [5, 5, 5],
    [512, 512, 512],
    [1, 1, 1],
  ])('%i–%i → %i', (lo, hi, want) => {
    const f = new BlockSizeFit()
    f.lo = lo
    f.hi = hi
    f.rows = 1
    expect(chooseBlockSize(f)).toBe(want)
  })
})

describe('settling block sizes before the replay', () => {
  it('infers each instance of the quick form on its own', () => {
    const fits = new Map([
      ['a', fitOf([[3, 14]])], // 3.5 < b ≤ 4.67: 4
      ['b', fitOf([[2, 40]])], // 13.3 < b ≤ 20: 16
      ['w', fitOf([])], // only rows without keys
    ])
    const plan = settleBlockSizes(quick(), fits, 't.jsonl', true)
    expect([...plan.quickSizes]).toEqual([
      ['a', 4],
      ['b', 16],
    ])
    expect(['a', 'b', 'w', 'unseen'].map((id) => plan.source(id))).toEqual([
      'inferred',
      'inferred',
      'default',
      'default',
    ])
  })

  it('a given size below the fit is a mismatch naming the implied size and the override', () => {
    const fits = new Map([['i', fitOf([[13, 6758]])]])
    const e = thrown(() => settleBlockSizes(quick(16), fits, 'mc.jsonl', true))
    expect(e.code).toBe('LMT_SIM_BLOCK_SIZE_MISMATCH')
    expect(e.message).toBe(
      'mc.jsonl:1: block_size 16 of instance "i" (--block-size) is too small for this row: 13 keys with input_len 6758 fit block sizes 483–519; the trace implies block size 512 (instance "i": its 1 rows fit block sizes 483–519, of which lmt picks 512 (the one with the most factors of two))',
    )
    expect(e.suggestions.join('\n')).toContain('--block-size 512')
    expect(e.suggestions.join('\n')).toContain('--no-block-size-check')
    // the override lets it through
    expect(settleBlockSizes(quick(16), fits, 'mc.jsonl', false).source('i')).toBe('flag')
  })

  it('a given size above the fit is a partial tail (V10), never overridden', () => {
    const fits = new Map([['i', fitOf([[3, 12]])]])
    for (const check of [true, false]) {
      const e = thrown(() => settleBlockSizes(quick(8), fits, 't.jsonl', check))
      expect(e.code).toBe('LMT_SIM_PARTIAL_TAIL')
      expect(e.message).toBe(
        't.jsonl:1: contains partial tail block keys: 3 keys, input_len 12, block_size 8 (at most 1 keys) [V10]; the trace implies block size 4 (instance "i": its 1 rows fit block size 4 only)',
      )
    }
  })

  it('rows that fit no single size cannot be inferred', () => {
    const fits = new Map([
      [
        'i',
        fitOf([
          [2, 8],
          [2, 12],
        ]),
      ],
    ])
    const e = thrown(() => settleBlockSizes(quick(), fits, 't.jsonl', true))
    expect(e.code).toBe('LMT_SIM_BLOCK_SIZE_INCONSISTENT')
    expect(e.message).toBe(
      't.jsonl: the block size of instance "i" cannot be inferred: its rows fit no single block size (lines 2 and 1 disagree)',
    )
  })

  it('a configuration: missing sizes are inferred, given ones checked', () => {
    const resolved = quick()
    resolved.quick = false
    resolved.config.instance_groups[0].instances = [
      {instance_id: 'a', block_size: 16, eviction_policy_type: 'lru', eviction_policy_params: {}},
      {instance_id: 'b', block_size: 16, eviction_policy_type: 'lru', eviction_policy_params: {}},
    ]
    resolved.blockSizeGiven = new Map([['b', 'config']])
    const fits = new Map([
      ['a', fitOf([[1, 600]])], // 300 < b ≤ 600: 512
      ['b', fitOf([[2, 40]])], // 13.3 < b ≤ 20: 16 fits
    ])
    const plan = settleBlockSizes(resolved, fits, 't.jsonl', true)
    expect(resolved.config.instance_groups[0].instances.map((i) => i.block_size)).toEqual([512, 16])
    expect([plan.source('a'), plan.source('b')]).toEqual(['inferred', 'config'])
    fits.set('b', fitOf([[2, 100]])) // 33.3 < b ≤ 50: 16 is too small, 48 is implied
    const e = thrown(() => settleBlockSizes(resolved, fits, 't.jsonl', true))
    expect(e.message).toMatch(/^t\.jsonl:1: block_size 16 of instance "b" \(configured\) is too small/)
    expect(e.suggestions[0]).toContain('set block_size 48 for instance "b" in the configuration')
  })
})
