import {performance} from 'node:perf_hooks'
const t = [['start', performance.now()]]
const {keepsYoungGenerationSmall} = await import('../dist/src/cli/young-generation.js')
const {loadOclifCore} = await import('../dist/src/vendor/oclif-core.js')
t.push(['yg+loader', performance.now()])
const {run, settings, Performance} = await loadOclifCore(keepsYoungGenerationSmall(process.argv.slice(2)))
t.push(['oclif core', performance.now()])
settings.enableAutoTranspile = false
settings.performanceEnabled = true
const {letLateSignalsPass} = await import('../dist/src/cli/interrupts.js')
letLateSignalsPass()
t.push(['interrupts', performance.now()])
try { await run(process.argv.slice(2), import.meta.url) } catch (e) { console.error(e.message) }
t.push(['run', performance.now()])
await Performance.collect()
process.on('exit', () => {
  t.push(['exit', performance.now()])
  const cpu = process.cpuUsage()
  process.stderr.write(t.map(([k, v]) => `${k} ${v.toFixed(1)}`).join('\n') + `\ncpu ${((cpu.user + cpu.system) / 1000).toFixed(0)}\n`)
  for (const [k, v] of Object.entries(Performance.oclifPerf)) if (typeof v === 'number' && v > 0.5) process.stderr.write(`  ${k}: ${v.toFixed(1)}\n`)
})
