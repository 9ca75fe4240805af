// A trace handed to simulate before conversion (a raw Mooncake or Qwen-Bailian file, a publisher log): the
// converters that say its first line looks like their input name the `lmt convert` run it needs.
import {basename} from 'node:path'
import {type LmtError, lmtError} from '../../errors.js'
import {defaultOutputPath} from '../../convert/settings.js'
import {KeyInterner} from './key-interner.js'
import {parseRow} from './trace-rows.js'
import {firstLine} from './trace-source.js'
import type {FormatRecogniser} from '../config/request.js'

/** The formats the first line of `path` looks like: none when it is a valid trace row or nobody recognises it. */
export async function foreignFormats(path: string, recognise?: FormatRecogniser): Promise<string[]> {
  if (recognise === undefined) return []
  const line = await firstLine(path)
  if (line === undefined) return []
  try {
    parseRow(line, 1, new KeyInterner())
    return []
  } catch {
    // not a trace row: ask the converters
  }
  try {
    return await recognise(line)
  } catch {
    return [] // the hint is a courtesy: a failing discovery leaves the original error
  }
}

export function notConvertedError(path: string, formats: string[], cause?: unknown): LmtError {
  const converted = defaultOutputPath([path])
  return lmtError('SIM_TRACE_NOT_CONVERTED', basename(path), formats, {
    suggestions: [`lmt convert -f ${formats[0]} -i ${path} (writes ${converted}), then simulate that file`],
    cause,
  })
}
