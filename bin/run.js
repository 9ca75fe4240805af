#!/usr/bin/env node
import {execute, settings} from '@oclif/core'

// plugins are plain JavaScript (lmt loads TypeScript converter modules itself, through tsx)
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})

// a plugin given up on while it was still loading may hold timers that would keep lmt running after the command
const {pluginCodeAbandoned} = await import('../dist/src/plugins/plugin-code.js')
const {exitProcess} = await import('../dist/src/plugins/exit-guard.js')
if (pluginCodeAbandoned()) {
  // the command succeeded (a failure has exited already); what it wrote is flushed first
  await new Promise((resolve) => process.stdout.write('', () => process.stderr.write('', resolve)))
  exitProcess(0)
}
