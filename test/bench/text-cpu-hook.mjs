// Loaded with `node --import` by the text benchmark: writes the process's CPU time (ms, all threads) at exit.
import {appendFileSync} from 'node:fs'
import {isMainThread} from 'node:worker_threads'

const target = process.env.LMT_BENCH_CPU_FILE
if (target && isMainThread)
  process.on('exit', () => {
    const u = process.cpuUsage()
    appendFileSync(target, `${(u.user + u.system) / 1000}\n`)
  })
