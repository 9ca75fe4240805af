#!/usr/bin/env node
import {register} from 'node:module'
import {execute, settings} from '@oclif/core'

// plugins import the running lmt (they declare it as an optional peer dependency, not a copy of their own)
register('./self-resolve-hook.mjs', import.meta.url, {
  data: {entry: new URL('../dist/src/index.js', import.meta.url).href},
})

// plugins are plain JavaScript (lmt loads TypeScript converter modules itself, through tsx)
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})
