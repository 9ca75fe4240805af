#!/usr/bin/env node
import {execute, settings} from '@oclif/core'

// plugins are plain JavaScript (lmt loads TypeScript converter modules itself, through tsx)
settings.enableAutoTranspile = false

await execute({dir: import.meta.url})
