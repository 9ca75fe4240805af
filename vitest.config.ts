import {availableParallelism} from 'node:os'
import {defineConfig} from 'vitest/config'

export default defineConfig({
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
