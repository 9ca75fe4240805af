// simulate's optional configuration argument from a piped stdin (`echo config.json | lmt simulate`), as oclif
// reads a missing argument: what ended within 10 ms of the parse (a machine loaded enough to stall the child
// longer misses it, hence the retries).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../helpers/cli.js'

describe('stdin as an argument', () => {
  it('lmt simulate takes its configuration from a piped stdin', {retry: 2}, () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmt-stdin-arg-'))
    try {
      const trace = join(dir, 'one.jsonl')
      writeFileSync(
        trace,
        '{"type": "get", "instance_id": "i", "timestamp_ns": 0, "keys": [1], "input_len": 16}\n',
      )
      const config = JSON.parse(readFileSync(join(ROOT, 'samples', 'optimizer_config.json'), 'utf8'))
      config.instance_groups[0].instances[0].instance_id = 'i'
      config.instance_groups[0].instances[0].block_size = 16
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config))
      const res = spawnSync(process.execPath, [BIN, 'simulate', '--trace', trace, '-o', 'out', '--json'], {
        cwd: dir,
        input: 'config.json\n',
        encoding: 'utf8',
      })
      expect(res.status, res.stderr).toBe(0)
      const summary = JSON.parse(res.stdout)
      expect(summary.config.instance_groups[0].quota_capacity_blocks).toBe(17090)
      expect(summary.config.eviction_params.eviction_mode).toBe(3)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
