import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {validatorFor} from '../../src/schemas.js'
import {convertSampleMooncake, lmt, tempDir} from '../helpers/cli.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())
let mc = ''

beforeAll(async () => {
  mc = join(tmp.dir, 'mc.jsonl')
  await convertSampleMooncake(mc)
})

const outDir = () => join(tmp.dir, `o${Math.random().toString(36).slice(2)}`)

async function simulateJson(args: string[]) {
  const r = await lmt(['simulate', '--no-plots', '--json', '-o', outDir(), ...args])
  return {r, doc: JSON.parse(r.stdout)}
}

function write(name: string, rows: object[]): string {
  const path = join(tmp.dir, name)
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n')
  return path
}

describe('simulate infers and checks block sizes', () => {
  it('the converted Mooncake trace without --block-size equals --block-size 512', async () => {
    const inferred = await simulateJson(['--trace', mc, '--capacity-blocks', '-1'])
    const given = await simulateJson(['--trace', mc, '--capacity-blocks', '-1', '--block-size', '512'])
    expect(inferred.r.exitCode, inferred.r.stderr).toBe(0)
    const [a, b] = [inferred.doc.instances[0], given.doc.instances[0]]
    expect(a.token_hit_rate).toBe((105592 * 512) / 144793823)
    expect(a.token_hit_rate).toBe(b.token_hit_rate)
    expect(a.hit_tokens).toBe(b.hit_tokens)
    expect([a.block_size, a.block_size_source, b.block_size_source]).toEqual([512, 'inferred', 'flag'])
    expect(a.block_size_check).toEqual({result: 'fits', rows: 12031, min: 512, max: 512})
    expect(validatorFor('simulate-summary.schema.json')(inferred.doc)).toBe(true)
  })

  it('the console names the inferred block size', async () => {
    const r = await lmt(['simulate', '--trace', mc, '--capacity-blocks', '-1', '--no-plots', '-o', outDir()])
    expect(r.stdout).toContain(
      'block size of instance "instance": 512 (inferred from the trace); its 12031 get rows fit 512',
    )
    expect(r.stdout).toContain('token hit rate 0.37338')
  })

  it('--block-size 16 fails naming 512, with the override in the hint; the override replays', async () => {
    const r = await lmt([
      'simulate',
      '--trace',
      mc,
      '--capacity-blocks',
      '-1',
      '--block-size',
      '16',
      '-o',
      outDir(),
    ])
    expect(r.exitCode).toBe(1)
    expect(r.stderr).toContain(
      'block_size 16 of instance "instance" (--block-size) is too small for this row',
    )
    expect(r.stderr).toContain('the trace implies block size 512')
    expect(r.stderr).toContain('--no-block-size-check')
    const j = await simulateJson(['--trace', mc, '--capacity-blocks', '-1', '--block-size', '16'])
    expect(j.doc.error.code).toBe('LMT_SIM_BLOCK_SIZE_MISMATCH')
    expect(j.doc.error.message).toMatch(/^mc\.jsonl:1: .*the trace implies block size 512 /)
    const over = await simulateJson([
      ...['--trace', mc, '--capacity-blocks', '-1', '--block-size', '16', '--no-block-size-check'],
    ])
    expect(over.r.exitCode).toBe(0)
    expect(over.doc.instances[0].token_hit_rate).toBeCloseTo(0.0116681, 6)
    expect(over.doc.instances[0].block_size_check.result).toBe('contradicted')
  })

  it('--block-size 1024 is a partial tail naming 512 (the override does not lift it)', async () => {
    for (const extra of [[], ['--no-block-size-check']]) {
      const j = await simulateJson([
        '--trace',
        mc,
        '--capacity-blocks',
        '-1',
        '--block-size',
        '1024',
        ...extra,
      ])
      expect(j.r.exitCode).toBe(1)
      expect(j.doc.error.code).toBe('LMT_SIM_PARTIAL_TAIL')
      expect(j.doc.error.message).toContain('[V10]; the trace implies block size 512')
    }
  })

  it('a configuration: a contradicting block_size is the same error; a missing one is inferred', async () => {
    const cfg = (bs?: number) => {
      const path = join(tmp.dir, `cfg${bs ?? 'none'}.json`)
      const inst: Record<string, unknown> = {instance_id: 'instance', eviction_policy_type: 'lru'}
      if (bs !== undefined) inst.block_size = bs
      writeFileSync(
        path,
        JSON.stringify({
          trace_file_path: mc,
          output_result_path: outDir(),
          instance_groups: [{group_name: 'g', quota_capacity_blocks: -1, instances: [inst]}],
        }),
      )
      return path
    }
    const bad = await lmt(['simulate', cfg(16), '--json', '--no-plots'])
    const e = JSON.parse(bad.stdout).error
    expect([bad.exitCode, e.code]).toEqual([1, 'LMT_SIM_BLOCK_SIZE_MISMATCH'])
    expect(e.message).toContain('block_size 16 of instance "instance" (configured) is too small')
    expect(e.message).toContain('the trace implies block size 512')
    const missing = await lmt(['simulate', cfg(), '--json', '--no-plots'])
    const inst = JSON.parse(missing.stdout).instances[0]
    expect([inst.block_size, inst.block_size_source, inst.token_hit_rate]).toEqual([
      512,
      'inferred',
      (105592 * 512) / 144793823,
    ])
    const over = await lmt(['simulate', cfg(16), '--json', '--no-plots', '--no-block-size-check'])
    expect(over.exitCode).toBe(0)
  })

  it('instances with different block sizes; an instance without a checkable row says so', async () => {
    // a: 4-token blocks (3 keys of 14 tokens: 3.5 < b ≤ 4.67); b: 16-token blocks (2 keys of 40: 13.3 < b ≤ 20);
    // w: writes only
    const trace = write('multi.jsonl', [
      {type: 'write', instance_id: 'a', timestamp_ns: 1, keys: [1, 2, 3]},
      {type: 'write', instance_id: 'b', timestamp_ns: 2, keys: [7, 8]},
      {type: 'write', instance_id: 'w', timestamp_ns: 3, keys: [9]},
      {type: 'get', instance_id: 'a', timestamp_ns: 4, keys: [1, 2, 3], input_len: 14},
      {type: 'get', instance_id: 'b', timestamp_ns: 5, keys: [7, 8], input_len: 40},
    ])
    const {r, doc} = await simulateJson(['--trace', trace, '--capacity-blocks', '-1'])
    expect(r.exitCode, r.stderr).toBe(0)
    const by = Object.fromEntries(doc.instances.map((i: Record<string, unknown>) => [i.instance_id, i]))
    // hit tokens = hit blocks × the instance's block size: a 3 × 4 = 12 of 14, b 2 × 16 = 32 of 40
    expect([by.a.block_size, by.a.hit_tokens, by.a.token_hit_rate]).toEqual([4, 12, 12 / 14])
    expect([by.b.block_size, by.b.hit_tokens, by.b.token_hit_rate]).toEqual([16, 32, 32 / 40])
    expect(by.w.block_size_source).toBe('default')
    expect(by.w.block_size_check).toEqual({result: 'unchecked', rows: 0, min: null, max: null})
    expect(doc.notices.map((n: {code: string}) => n.code)).toContain('LMT_SIM_BLOCK_SIZE_UNCHECKED')
    const text = await lmt([
      'simulate',
      '--trace',
      trace,
      '--capacity-blocks',
      '-1',
      '--no-plots',
      '-o',
      outDir(),
    ])
    expect(text.stdout).toContain(
      'block size of instance "w": 16 (default); could not be checked: no get row with keys and input_len',
    )
    // a given block size that fits one instance and not the other
    const one = await simulateJson(['--trace', trace, '--capacity-blocks', '-1', '--block-size', '4'])
    expect(one.doc.error.code).toBe('LMT_SIM_BLOCK_SIZE_MISMATCH')
    expect(one.doc.error.message).toMatch(/^multi\.jsonl:5: block_size 4 of instance "b"/)
    expect(one.doc.error.message).toContain('the trace implies block size 16')
  })

  it('a contradiction late in the trace, and in a sweep, is the same error', async () => {
    const rows: object[] = []
    for (let t = 0; t < 600; t++)
      rows.push({type: 'get', instance_id: 'i', timestamp_ns: t, keys: [t % 7], input_len: 16 + (t % 16)})
    rows.push({type: 'get', instance_id: 'i', timestamp_ns: 999, keys: [1], input_len: 40}) // 20 < b ≤ 40
    const trace = write('late.jsonl', rows)
    const j = await simulateJson(['--trace', trace, '--capacity-blocks', '-1', '--block-size', '16'])
    expect(j.doc.error.code).toBe('LMT_SIM_BLOCK_SIZE_MISMATCH')
    expect(j.doc.error.message).toMatch(/^late\.jsonl:601: .*implies no block size/)
    const s = await simulateJson([
      '--trace',
      trace,
      '--sweep',
      '--sweep-capacities',
      '1,2',
      '--block-size',
      '16',
    ])
    expect(s.doc.error.code).toBe('LMT_SIM_BLOCK_SIZE_MISMATCH')
    const inferred = await simulateJson(['--trace', trace, '--capacity-blocks', '-1'])
    expect(inferred.doc.error.code).toBe('LMT_SIM_BLOCK_SIZE_INCONSISTENT')
  })

  it('a sweep without --block-size infers it from the rows it holds', async () => {
    const {r, doc} = await simulateJson([
      '--trace',
      mc,
      '--sweep',
      '--sweep-capacities',
      '1000,17090',
      '--oracle',
      'none',
    ])
    expect(r.exitCode, r.stderr).toBe(0)
    expect([doc.instances[0].block_size, doc.instances[0].block_size_source]).toEqual([512, 'inferred'])
    const csv = readFileSync(join(doc.config.output_result_path, 'sweep.csv'), 'utf8')
    expect(csv).toContain(',17090,')
  })
})
