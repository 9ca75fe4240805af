// Loaded with `node --import` by the benchmarks: reports the process's peak RSS (KiB) and its CPU time (user and
// system, µs) when it exits, as one line `<rss> <user> <system>`.
import {appendFileSync} from 'node:fs'

const target = process.env.LMT_BENCH_RSS_FILE
if (target)
  process.on('exit', () => {
    const u = process.resourceUsage()
    appendFileSync(target, `${u.maxRSS} ${u.userCPUTime} ${u.systemCPUTime}\n`)
  })
