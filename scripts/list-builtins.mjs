// Build step: writes the module listing of each built-in plugin directory of dist/ (see listBuiltinModules), so
// that commands need not scan them at start-up.
import {writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {MODULE_LISTING, scanModuleDir} from '../dist/src/plugins/module-loader.js'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
for (const sub of ['plugins/converters']) {
  const dir = join(dist, sub)
  const {files, missing} = await scanModuleDir(dir, false)
  if (missing) throw new Error(`list-builtins: ${dir} is missing (run tsc first)`)
  writeFileSync(join(dir, MODULE_LISTING), JSON.stringify(files.map((f) => relative(dir, f))) + '\n')
}
