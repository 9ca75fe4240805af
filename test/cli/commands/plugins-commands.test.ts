import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {lmtProcess, ROOT, tempDir} from '../../helpers/cli.js'

// lmt's own `plugins`, `plugins install` and `plugins link` (oclif's, with lmt's output and safeguards), and what
// lmt refuses of an installed plugin's package.json. Plugins live in a throw-away oclif data directory.
const tmp = tempDir()
afterAll(() => tmp.cleanup())
const env = {
  LMT_DATA_DIR: join(tmp.dir, 'data'),
  LMT_CACHE_DIR: join(tmp.dir, 'cache'),
  LMT_CONFIG_DIR: join(tmp.dir, 'config'),
}
const run = (args: string[]) => lmtProcess(args, {env, cwd: tmp.dir})

/** A plugin package folder with the given package.json fields (and an empty lockfile: nothing to install). */
function pluginFolder(name: string, fields: Record<string, unknown>): string {
  const dir = join(tmp.dir, name)
  mkdirSync(dir, {recursive: true})
  const pkg = {name: `lmt-plugin-${name}`, version: '1.0.0', type: 'module', oclif: {}, ...fields}
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg))
  writeFileSync(join(dir, 'package-lock.json'), '{}')
  return dir
}

/** A module that, when imported and its default export called, leaves a file named `marker` in the temp folder. */
function markerModule(path: string, marker: string): void {
  writeFileSync(
    path,
    `import {writeFileSync} from 'node:fs'\nwriteFileSync(${JSON.stringify(join(tmp.dir, `${marker}.imported`))}, '')\n` +
      `export default async function () { writeFileSync(${JSON.stringify(join(tmp.dir, marker))}, '') }\n`,
  )
}

describe('lmt plugins --json', () => {
  it('is [] with nothing installed, then a short list of each plugin', () => {
    const none = run(['plugins', '--json'])
    expect(none.exitCode).toBe(0)
    expect(JSON.parse(none.stdout)).toEqual([])
    const dir = pluginFolder('listed', {})
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    try {
      expect(JSON.parse(run(['plugins', '--json']).stdout)).toEqual([
        {name: 'lmt-plugin-listed', version: '1.0.0', type: 'link', root: dir},
      ])
    } finally {
      expect(run(['plugins', 'uninstall', 'lmt-plugin-listed']).exitCode).toBe(0)
    }
  })
})

describe('lmt plugins link', () => {
  it('of a folder without package.json is a coded usage error', () => {
    const dir = join(tmp.dir, 'not-a-package')
    mkdirSync(dir)
    const r = run(['plugins', 'link', dir])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toBe(
      `error: ${dir} is not an npm package: it has no package.json\n` +
        `hint: a plugin is a folder with a package.json: see "A plugin package" in lmt's README\n`,
    )
  })
})

describe('lmt plugins install', () => {
  const scripts = {
    preinstall: "node -e \"require('fs').writeFileSync('PRE_RAN', '')\"",
    postinstall: "node -e \"require('fs').writeFileSync('POST_RAN', '')\"",
    prepare: "node -e \"require('fs').writeFileSync('PREPARE_RAN', '')\"",
  }
  const ran = (dir: string) => ['PRE_RAN', 'POST_RAN', 'PREPARE_RAN'].filter((f) => existsSync(join(dir, f)))

  it("does not run the package's install scripts, and says so; --allow-scripts runs them", () => {
    const dir = pluginFolder('scripted', {scripts})
    const r = run(['plugins', 'install', `file:${dir}`])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toContain("note: the package's install scripts are not run (--allow-scripts runs them)")
    const installed = join(env.LMT_DATA_DIR, 'node_modules', 'lmt-plugin-scripted')
    expect(ran(dir)).toEqual([])
    expect(ran(installed)).toEqual([])
    expect(run(['plugins', 'uninstall', 'lmt-plugin-scripted']).exitCode).toBe(0)

    const allowed = run(['plugins', 'install', `file:${dir}`, '--allow-scripts'])
    expect(allowed.exitCode, allowed.stderr).toBe(0)
    expect(allowed.stderr).not.toContain('install scripts are not run')
    expect([...ran(dir), ...ran(installed)].length).toBeGreaterThan(0)
    expect(run(['plugins', 'uninstall', 'lmt-plugin-scripted']).exitCode).toBe(0)
  })

  it('plugins link runs no install script of the linked folder unless --allow-scripts', () => {
    const dir = pluginFolder('linked-scripted', {scripts})
    writeFileSync(join(dir, 'package-lock.json'), '{}')
    const r = run(['plugins', 'link', dir])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(ran(dir)).toEqual([])
    expect(run(['plugins', 'uninstall', 'lmt-plugin-linked-scripted']).exitCode).toBe(0)

    const allowed = run(['plugins', 'link', dir, '--allow-scripts'])
    expect(allowed.exitCode, allowed.stderr).toBe(0)
    expect(ran(dir).length).toBeGreaterThan(0)
    expect(run(['plugins', 'uninstall', 'lmt-plugin-linked-scripted']).exitCode).toBe(0)
  })

  it("plugins update (and reset --reinstall) does not run the new version's install scripts, and says so; --allow-scripts runs them", () => {
    // a tarball installed by its file: URL; the tarball at that URL then holds a new version, which update installs
    const marks = join(tmp.dir, 'update-marks')
    mkdirSync(marks)
    const mark = (name: string) => `node -e "require('fs').writeFileSync('${join(marks, name)}', '')"`
    const tarball = join(tmp.dir, 'lmt-plugin-updated.tgz')
    const pack = (version: string) => {
      const dir = join(tmp.dir, `updated-${version}`, 'package')
      mkdirSync(dir, {recursive: true})
      const scripts = {preinstall: mark(`PRE_${version}`), postinstall: mark(`POST_${version}`)}
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({name: 'lmt-plugin-updated', version, type: 'module', oclif: {}, scripts}),
      )
      const tar = spawnSync('tar', ['-czf', tarball, '-C', join(dir, '..'), 'package'])
      expect(tar.status, String(tar.stderr)).toBe(0)
    }
    const installedVersion = () =>
      JSON.parse(
        readFileSync(join(env.LMT_DATA_DIR, 'node_modules', 'lmt-plugin-updated', 'package.json'), 'utf8'),
      ).version
    pack('1.0.0')
    expect(run(['plugins', 'install', `file:${tarball}`]).exitCode).toBe(0)
    try {
      pack('1.0.1')
      const r = run(['plugins', 'update'])
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stderr).toContain("note: the plugins' install scripts are not run (--allow-scripts runs them)")
      expect(installedVersion()).toBe('1.0.1')
      expect(readdirSync(marks)).toEqual([])
      pack('1.0.2')
      const allowed = run(['plugins', 'update', '--allow-scripts'])
      expect(allowed.exitCode, allowed.stderr).toBe(0)
      expect(allowed.stderr).not.toContain('install scripts are not run')
      expect(installedVersion()).toBe('1.0.2')
      expect(readdirSync(marks).sort()).toEqual(['POST_1.0.2', 'PRE_1.0.2'])
      // plugins reset --reinstall installs it again, by the same rule
      pack('1.0.3')
      const reset = run(['plugins', 'reset', '--reinstall'])
      expect(reset.exitCode, reset.stderr).toBe(0)
      expect(reset.stderr).toContain("note: the plugins' install scripts are not run")
      expect(installedVersion()).toBe('1.0.3')
      expect(readdirSync(marks).sort()).toEqual(['POST_1.0.2', 'PRE_1.0.2'])
    } finally {
      run(['plugins', 'uninstall', 'lmt-plugin-updated'])
    }
  })

  it('plugins update --help says that install scripts do not run, with an --allow-scripts example', () => {
    const r = run(['plugins', 'update', '--help'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('--ignore-scripts')
    expect(r.stdout).toContain('lmt plugins update --allow-scripts')
  })

  it('--help has examples for lmt: a file: folder (the bundled example plugin) and --allow-scripts', () => {
    const r = run(['plugins', 'install', '--help'])
    // a long install path puts the example on two lines, broken between its arguments
    const joined = r.stdout.replace(/ \\\n\s*/g, ' ')
    expect(joined).toMatch(/lmt plugins install file:\S+\/examples\/lmt-plugin-example/)
    expect(r.stdout).toContain('--allow-scripts')
    expect(r.stdout).not.toContain('myplugin')
  })
})

describe("an installed plugin's oclif hooks", () => {
  it('outside its package are not run, with a coded warning; inside it they run', () => {
    const outside = join(tmp.dir, 'outside')
    mkdirSync(outside)
    markerModule(join(outside, 'init.js'), 'OUTSIDE_INIT_RAN')
    markerModule(join(outside, 'converters.js'), 'OUTSIDE_CONVERTERS_RAN')
    const dir = pluginFolder('hooks', {
      oclif: {
        hooks: {init: ['../outside/init.js', './inside.js'], 'lmt:converters': '../outside/converters'},
      },
    })
    markerModule(join(dir, 'inside.js'), 'INSIDE_INIT_RAN')
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    try {
      for (const args of [['--version'], ['converters']]) {
        const r = run(args)
        expect(r.exitCode).toBe(0)
        expect(r.stderr).toContain(
          `warning: plugin lmt-plugin-hooks: hook "init" (../outside/init.js) in package.json points outside the plugin's package; not run [LMT_PLUGIN_OUTSIDE_PACKAGE]\n`,
        )
        expect(r.stderr).toContain(
          `warning: plugin lmt-plugin-hooks: hook "lmt:converters" (../outside/converters) in package.json points outside the plugin's package; not run [LMT_PLUGIN_OUTSIDE_PACKAGE]\n`,
        )
      }
      expect(existsSync(join(tmp.dir, 'INSIDE_INIT_RAN'))).toBe(true)
      for (const marker of ['OUTSIDE_INIT_RAN', 'OUTSIDE_CONVERTERS_RAN'])
        expect(existsSync(join(tmp.dir, `${marker}.imported`)), marker).toBe(false)
    } finally {
      run(['plugins', 'uninstall', 'lmt-plugin-hooks'])
    }
  })
})

describe('a --converter-module that does not load', () => {
  it('is a coded error (exit 2), also with -q', () => {
    const nope = join(tmp.dir, 'nope.mjs')
    const listing = run(['converters', '--converter-module', nope, '--json'])
    expect(listing.exitCode).toBe(2)
    expect(JSON.parse(listing.stdout).error.code).toBe('LMT_PLUGIN_MODULE_LOAD_FAILED')
    const input = join(tmp.dir, 'in.txt')
    writeFileSync(input, '1\n')
    const r = run([
      'convert',
      '-q',
      '-i',
      input,
      '-f',
      'mine',
      '--converter-module',
      nope,
      '-o',
      join(tmp.dir, 'x.jsonl'),
    ])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`^error: cannot load converter module ${nope}: `))
    expect(r.stderr).toContain('hint: a --converter-module is a file')
  })
})

describe('help shows the flags plugins add', () => {
  it('lmt convert --help: those of a --converter-module on the same line', () => {
    const example = join(ROOT, 'examples', 'lmt-plugin-example', 'converters', 'lookup-hash-log.js')
    expect(run(['convert', '--help']).stdout).not.toContain('--lookup-model')
    const r = run(['convert', '--help', '--converter-module', example])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toMatch(
      /^LOOKUP_HASH_LOG FLAGS\n {2}--lookup-model=<value> +Instance id of the lines that name no/m,
    )
  })

  it("lmt replay --help: those of an installed plugin's replay level, under the level's name", () => {
    const dir = pluginFolder('toylevel', {lmt: {levels: 'levels'}})
    mkdirSync(join(dir, 'levels'))
    writeFileSync(
      join(dir, 'levels', 'toy.js'),
      `import {MapDispatcher} from 'lmt'
import {Flags} from 'lmt/flags'
export const toyLevel = {
  name: 'toy',
  description: 'a level with a flag',
  flags: {'toy-depth': Flags.integer({summary: 'How deep the toy goes.', default: 2})},
  replayableSchemaVersions: [2],
  parseConfig: (flags) => ({depth: flags['toy-depth']}),
  createTarget: () => ({}),
  buildDispatcher: () => new MapDispatcher(),
}
`,
    )
    expect(run(['plugins', 'link', dir, '--no-install']).exitCode).toBe(0)
    try {
      const r = run(['replay', '--help'])
      expect(r.exitCode).toBe(0)
      expect(r.stdout).toMatch(
        /^LEVEL TOY FLAGS\n {2}--toy-depth=<value> +\[default: 2\] How deep the toy goes\.$/m,
      )
    } finally {
      run(['plugins', 'uninstall', 'lmt-plugin-toylevel'])
    }
  })
})
