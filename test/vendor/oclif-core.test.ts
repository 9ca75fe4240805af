// The bundled @oclif/core the build makes is the one copy of oclif a CLI process runs: every importer gets it, its
// code cache is taken, and the CLI prints what oclif loaded as
// a package prints.
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {lmt, lmtProcess} from '../helpers/cli.js'

const DIST = (p: string): string => fileURLToPath(new URL(`../../dist/src/${p}`, import.meta.url))

/** Runs an ES module program in a fresh node process; returns what it printed. */
function runProgram(program: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', program], {encoding: 'utf8'})
}

describe('the bundled @oclif/core', () => {
  it('the build bundles it, with a code cache', () => {
    expect(existsSync(DIST('vendor/oclif-core.bundle.cjs'))).toBe(true)
    expect(existsSync(DIST('vendor/oclif-core.bundle.cache'))).toBe(true)
  })

  it('is what import and require of @oclif/core give, and no file of the package is run', () => {
    const program = `
      import {createRequire} from 'node:module'
      const {loadOclifCore, OCLIF_ENTRY} = await import(${JSON.stringify(DIST('vendor/oclif-core.js'))})
      const core = await loadOclifCore()
      const imported = await import('@oclif/core')
      const require = createRequire(OCLIF_ENTRY)
      const oclifFiles = Object.keys(require.cache).filter((f) => f.includes('@oclif'))
      process.stdout.write(JSON.stringify({
        sameImport: imported.Command === core.Command && imported.Errors.CLIError === core.Errors.CLIError,
        sameRequire: require('@oclif/core').Config === core.Config,
        // the entry the bundle stands in for, and the package.json oclif reads for its version
        oclifFiles: oclifFiles.map((f) => f.slice(f.lastIndexOf('@oclif'))).filter((f) => !f.endsWith('package.json')),
      }))`
    expect(JSON.parse(runProgram(program))).toEqual({
      sameImport: true,
      sameRequire: true,
      oclifFiles: ['@oclif/core/lib/index.js'],
    })
  })

  it('its cache is taken', () => {
    const program = `
      const {loadOclifBundle, OCLIF_BUNDLE_CACHE} = await import(${JSON.stringify(DIST('vendor/oclif-core.js'))})
      const {readFileSync} = await import('node:fs')
      const {script} = loadOclifBundle(readFileSync(OCLIF_BUNDLE_CACHE))
      process.stdout.write(String(script.cachedDataRejected))`
    expect(runProgram(program)).toBe('false')
  })

  it.each([['simulate', '--help'], ['trace', 'info', '--help'], ['--help'], ['--version']])(
    'lmt %s prints what oclif as a package prints',
    async (...args) => {
      const bundled = lmtProcess(args)
      expect(bundled.exitCode).toBe(0)
      expect(bundled.stdout).toBe((await lmt(args)).stdout)
    },
  )

  it("tells oclif's errors by their class, as the package does", () => {
    const res = lmtProcess(['simulate', '--capacity-blok', '8'])
    expect(res.exitCode).toBe(2)
    expect(res.stderr).toContain('error: unknown flag --capacity-blok; did you mean --capacity-blocks?')
  })
})
