import {availableParallelism} from 'node:os'
import {fileURLToPath} from 'node:url'
import {defineConfig} from 'vitest/config'

const ENTRIES: Record<string, string> = {lmt: 'index', 'lmt/flags': 'flags'}
const BUILT = fileURLToPath(new URL('./dist/', import.meta.url))

export default defineConfig({
  // lmt's own converters import lmt by its name, as a third party does: the running lmt, which is src/ for a module
  // of the sources and dist/ for a built one (a test may load built modules: worker threads run JavaScript)
  plugins: [
    {
      name: 'lmt-by-its-name',
      enforce: 'pre',
      resolveId(source: string, importer: string | undefined) {
        const entry = ENTRIES[source]
        if (entry === undefined) return null
        const built = importer !== undefined && importer.startsWith(BUILT)
        return fileURLToPath(new URL(built ? `./dist/src/${entry}.js` : `./src/${entry}.ts`, import.meta.url))
      },
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    disableConsoleIntercept: true,
    pool: 'forks',
    // much of a test file's time is spent waiting on the child processes and timers it starts: one worker more
    // than the cores keeps them busy (vitest's default, one less than the cores, leaves a 2-core machine half idle)
    maxWorkers: availableParallelism() + 1,
    env: {NO_COLOR: '1'},
  },
})
