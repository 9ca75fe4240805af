import {spawnSync} from 'node:child_process'
import {cpSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, lmt, lmtProcess, tempDir} from '../../helpers/cli.js'

// The slow check (npm pack, npm install -g of the tarball, every example run from another folder) is
// scripts/check-package.mjs; these are its fast parts.

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, {examples?: Array<string | {command: string}>}>
}

let tmp: {dir: string; cleanup: () => void}
beforeAll(() => {
  tmp = tempDir()
})
afterAll(() => tmp.cleanup())

describe('the package', () => {
  it('ships every file a --help example names', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
    expect(r.status).toBe(0)
    const files = new Set((JSON.parse(r.stdout)[0].files as Array<{path: string}>).map((f) => f.path))
    const named = new Set<string>()
    for (const cmd of Object.values(manifest.commands))
      for (const ex of cmd.examples ?? [])
        for (const m of (typeof ex === 'string' ? ex : ex.command).matchAll(/<%= config\.root %>\/(\S+)/g))
          named.add(m[1].replace(/\/$/, ''))
    expect(named.size).toBeGreaterThan(5)
    for (const path of named) {
      const shipped = files.has(path) || [...files].some((f) => f.startsWith(path + '/'))
      expect(shipped, path).toBe(true)
    }
    // and nothing an example uses is left to the current folder but outputs: no bare input names
    for (const cmd of Object.values(manifest.commands))
      for (const ex of cmd.examples ?? [])
        expect(typeof ex === 'string' ? ex : ex.command).not.toMatch(/ -i (?!<%= config\.root)/)
  })

  it('the example plugin ships a sample input, which converts', async () => {
    const example = join(ROOT, 'examples', 'lmt-plugin-example')
    const pkg = JSON.parse(readFileSync(join(example, 'package.json'), 'utf8')) as {files: string[]}
    expect(pkg.files).toContain('samples')
    const out = join(tmp.dir, 'lookups.jsonl')
    const r = await lmt([
      'convert',
      '-q',
      '-i',
      join(example, 'samples', 'lookups.jsonl'),
      '-f',
      'lookup_hash_log',
      '--converter-module',
      join(example, 'converters', 'lookup-hash-log.js'),
      '-o',
      out,
    ])
    expect(r.exitCode).toBe(0)
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(6) // 3 gets, 3 writes
  })

  it('lmt plugins link of the example plugin prints no lockfile warning', () => {
    const env = {LMT_DATA_DIR: join(tmp.dir, 'data'), LMT_CACHE_DIR: join(tmp.dir, 'cache')}
    // the plugin has a lockfile (and no dependencies), so the install that follows a link finds nothing to warn of
    const copy = join(tmp.dir, 'lmt-plugin-example') // the install after a link runs in the folder: a copy
    cpSync(join(ROOT, 'examples', 'lmt-plugin-example'), copy, {recursive: true})
    const r = lmtProcess(['plugins', 'link', copy], {env})
    expect(r.exitCode).toBe(0)
    expect(r.stderr).not.toMatch(/lockfile|warning/i)
    expect(lmtProcess(['plugins', 'uninstall', 'lmt-plugin-example'], {env}).exitCode).toBe(0)
  })
})
