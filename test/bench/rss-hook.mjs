// Loaded with `node --import` by the benchmarks: reports the process's peak RSS (KiB) when it exits.
import {appendFileSync} from 'node:fs'

const target = process.env.LMT_BENCH_RSS_FILE
if (target) process.on('exit', () => appendFileSync(target, `${process.resourceUsage().maxRSS}\n`))
