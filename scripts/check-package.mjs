#!/usr/bin/env node
// The package as a user gets it: `npm pack` in a copy of the checkout as a fresh clone has it (the files git
// tracks or would track, no dist/: the pack must build it), `npm install -g` of the tarball into a temporary
// prefix, then, from a folder of its own, every example of every command's --help, the README's block marked as
// checked, and the example plugin linked (with no lockfile warning), used and removed. Needs the dev dependencies
// (npm ci: the copy uses this checkout's node_modules to build) and the npm registry (the tarball's dependencies are
// installed from it; optional ones are left out). Exit 1 on the first failure, naming it.
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const tmp = mkdtempSync(join(tmpdir(), 'lmt-package-'))
const prefix = join(tmp, 'prefix')
const work = join(tmp, 'work')
mkdirSync(work)
const env = {
  ...process.env,
  PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
  LMT_DATA_DIR: join(tmp, 'data'),
  LMT_CACHE_DIR: join(tmp, 'cache'),
  NO_COLOR: '1',
  npm_config_prefix: prefix, // `npm root -g` in the README block names this install
}

function fail(what, r) {
  process.stderr.write(
    `check-package: FAILED: ${what}\n${r?.stdout ?? ''}${r?.stderr ?? ''}\n(kept: ${tmp})\n`,
  )
  process.exit(1)
}

function sh(command, {cwd = work, what = command} = {}) {
  const r = spawnSync('sh', ['-ec', command], {
    cwd,
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    timeout: 600_000,
  })
  if (r.status !== 0) fail(`${what} (exit ${r.status})`, r)
  return r
}

// 1. a fresh clone's files (committed or not, nothing git ignores: no dist/, no oclif.manifest.json), packed, the
// tarball installed globally
const clone = join(tmp, 'clone')
const files = sh('git ls-files -z --cached --others --exclude-standard', {cwd: ROOT}).stdout.split('\0')
for (const file of files)
  if (file !== '' && existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(clone, file), {force: false})
symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'))
const pack = sh(`npm pack --json --pack-destination '${tmp}'`, {
  cwd: clone,
  what: 'npm pack in a fresh clone',
})
// the build's output precedes the JSON on stdout
const packed = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[$/m)))[0]
if (!packed.files.some((f) => f.path === 'dist/src/index.js')) fail('the tarball has no dist/', pack)
sh(`npm install -g '${join(tmp, packed.filename)}' --prefix '${prefix}' --omit=optional --no-audit --no-fund`)
const root = join(prefix, 'lib', 'node_modules', 'lmt')
console.log(`installed ${packed.filename} (${packed.entryCount} files) into ${prefix}`)

// 2. every --help example, rendered as oclif renders it, commands in the manifest's order (convert first: the
// simulate examples read its Mooncake output)
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))
for (const [id, cmd] of Object.entries(manifest.commands)) {
  for (const ex of cmd.examples ?? []) {
    const text = (typeof ex === 'string' ? ex : ex.command)
      .replaceAll('<%= config.bin %>', 'lmt')
      .replaceAll('<%= command.id %>', id.replaceAll(':', ' '))
      .replaceAll('<%= config.root %>', root)
    sh(text, {what: `example of lmt ${id}: ${text}`})
    console.log(`ok  ${text.replaceAll(root, '$ROOT')}`)
  }
}

// 3. the README's checked block (the line after the marker opens it)
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const block = /<!-- checked by scripts\/check-package\.mjs -->\n```sh\n([\s\S]*?)```/.exec(readme)
if (!block) fail('README: no block marked "checked by scripts/check-package.mjs"')
sh(block[1], {what: `README block:\n${block[1]}`})
console.log('ok  the README block')

// 4. the example plugin: linked with no warning, its samples converted and replayed, removed
const example = join(root, 'examples', 'lmt-plugin-example')
const link = sh(`lmt plugins link '${example}'`)
if (/warning|lockfile/i.test(link.stderr)) fail('lmt plugins link printed a warning', link)
sh(`lmt convert -i '${example}/samples/lookups.jsonl' -f lookup_hash_log -o lookups.jsonl`)
sh(`lmt replay '${example}/samples/tally.lct'`)
sh('lmt plugins uninstall lmt-plugin-example')
console.log('ok  lmt plugins link / convert / replay / uninstall of the example plugin')

rmSync(tmp, {recursive: true, force: true})
console.log('check-package: the installed package works')
