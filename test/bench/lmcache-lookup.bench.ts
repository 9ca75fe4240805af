// `npm run bench:lmcache-lookup`: `lmt simulate -i LOG_DIR -f lmcache_lookup --policy lmcache_lru` end to end on a
// generated 1 GiB lookup-hash log (LMT_BENCH_LOOKUP_MB to change it), kept in bench-out/ between runs, and on a
// quarter of it: the rate in MB/s of log (target ≥ 50) and the peak RSS of both (memory flat in the log's length:
// the full log may take at most 1.25× the quarter's). Exits 1 when a target is missed.
import {existsSync, mkdirSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {writeLookupLog} from './gen-lookup-log.mjs'
import {ROOT, runLmt} from './harness.mjs'

const MB = 1 << 20
const totalMb = Number(process.env.LMT_BENCH_LOOKUP_MB ?? 1024)
const kept = join(ROOT, 'bench-out')

function logOf(mb: number): {dir: string; bytes: number} {
  const dir = join(kept, `lookup-log-${mb}mb`)
  if (!existsSync(dir) || readdirSync(dir).length === 0) {
    mkdirSync(dir, {recursive: true})
    writeLookupLog(dir, mb * MB)
  }
  const bytes = readdirSync(dir).reduce((a, f) => a + statSync(join(dir, f)).size, 0)
  return {dir, bytes}
}

let failed = false
const results: Array<{mb: number; seconds: number; rssMb: number}> = []
for (const mb of [Math.max(1, Math.round(totalMb / 4)), totalMb]) {
  const {dir, bytes} = logOf(mb)
  const run = runLmt(
    ['simulate', '-i', dir, '-f', 'lmcache_lookup', '--policy', 'lmcache_lru', '--capacity', '64'],
    {
      json: true,
    },
  )
  const rate = bytes / MB / run.seconds
  results.push({mb, seconds: run.seconds, rssMb: run.rssMb})
  console.log(
    `lmcache_lru ${mb} MB log (${run.output.events} lookups): ${run.seconds.toFixed(2)} s wall, ${run.cpuSeconds.toFixed(2)} s CPU, ` +
      `${rate.toFixed(1)} MB/s, peak RSS ${run.rssMb.toFixed(0)} MB, hit rate ${run.output.token_hit_rate.toFixed(4)}`,
  )
  if (mb === totalMb && rate < 50) {
    console.log(`  MISSED: ${rate.toFixed(1)} MB/s < 50 MB/s`)
    failed = true
  }
}
const [quarter, full] = results
if (full.rssMb > quarter.rssMb * 1.25) {
  console.log(
    `  MISSED: peak RSS ${full.rssMb.toFixed(0)} MB > 1.25 × ${quarter.rssMb.toFixed(0)} MB of the quarter log`,
  )
  failed = true
}
if (failed) process.exitCode = 1
