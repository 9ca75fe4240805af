import {fileURLToPath} from 'node:url'
import {isInside} from './plugin-paths.js'

// The one rule of whose code runs on lmt's own thread: a module inside lmt's own tree (its compiled build; from
// sources, its checkout) is lmt's and trusted, as the built-in converters and levels are. Any other module is
// third-party code and runs on the plugin thread (plugin-thread.ts), wherever it was found and however it was named.

/** lmt's own trees: `<package>/dist/` in a build; from sources, `src/` and `plugins/` of the checkout. */
const OWN_TREES = import.meta.url.endsWith('.ts')
  ? ['../../src/', '../../plugins/'].map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
  : [fileURLToPath(new URL('../../', import.meta.url))]

/** Whether the module at `path` (links resolved) is lmt's own. */
export function isLmtModule(path: string): boolean {
  return OWN_TREES.some((tree) => isInside(tree, path))
}
