#!/usr/bin/env node
import {execute, settings} from '@oclif/core'
import {settleArrayBufferDetaching} from '../dist/src/util/array-buffer-detaching.js'

// before any hot code is compiled (see the module)
settleArrayBufferDetaching()

// plugins are plain JavaScript (lmt loads TypeScript converter modules itself, through tsx)
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})
