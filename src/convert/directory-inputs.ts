// A directory given as an input of a format whose converter lists its files (`ConverterClass.inputFiles`, e.g. the
// rotated files of an LMCache lookup-hash log directory): the directory becomes those files, in that order.
import {lmtError} from '../errors.js'
import {isFolder} from '../util/output-path.js'
import type {ConverterClass} from './types.js'

/** The inputs with each directory replaced by the files the converter lists for it (a directory of none is an error). */
export function expandDirectoryInputs(inputs: readonly string[], cls: ConverterClass): string[] {
  const list = typeof cls.inputFiles === 'function' ? cls.inputFiles.bind(cls) : undefined
  const out: string[] = []
  for (const input of inputs) {
    // a path that is not there is the input checks' to report
    if (!list || !isFolder(input)) {
      out.push(input)
      continue
    }
    const files = list(input)
    if (files.length === 0)
      throw lmtError('CONVERT_INPUT_UNREADABLE', input, `a directory with no input files of this format`)
    out.push(...files)
  }
  return out
}
