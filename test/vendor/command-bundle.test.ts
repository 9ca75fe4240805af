// simulate's command as the build bundles it (scripts/bundle-simulate.mjs): one script with its code cache, which a
// simulate process takes, run by the stub in the command's place; the command is the one the sources define.
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import Simulate from '../../src/commands/simulate.js'

const DIST = (p: string): string => fileURLToPath(new URL(`../../dist/src/${p}`, import.meta.url))
const BUNDLE = DIST('simulate/command.bundle.cjs')

describe("simulate's command bundle", () => {
  it('the build bundles it, with a code cache, and the command module is its stub', () => {
    expect(existsSync(BUNDLE)).toBe(true)
    expect(existsSync(DIST('simulate/command.bundle.cache'))).toBe(true)
    const stub = readFileSync(DIST('commands/simulate.js'), 'utf8')
    expect(stub).toContain('loadCommandBundle(')
    expect(stub.split('\n').length).toBeLessThan(30)
  })

  it('the cache is taken', () => {
    const program = `
      const {loadOclifCore} = await import(${JSON.stringify(DIST('vendor/oclif-core.js'))})
      await loadOclifCore()
      await import(${JSON.stringify(DIST('commands/simulate.js'))})
      const {loadedBundleScript} = await import(${JSON.stringify(DIST('vendor/command-bundle.js'))})
      process.stdout.write(String(loadedBundleScript(${JSON.stringify(BUNDLE)}).cachedDataRejected))`
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', program], {encoding: 'utf8'})).toBe(
      'false',
    )
  })

  it('exports the command of the sources: its flags, arguments and texts', async () => {
    const built = (await import(DIST('commands/simulate.js'))).default as typeof Simulate
    expect(built.name).toBe('Simulate')
    expect(Object.keys(built.flags)).toEqual(Object.keys(Simulate.flags))
    expect(Object.keys(built.args)).toEqual(Object.keys(Simulate.args))
    expect(built.summary).toBe(Simulate.summary)
    expect(built.examples).toEqual(Simulate.examples)
  })
})
