// One conversion through ConversionRun with the converter taken as lmt's own (its fast lanes on) or as a plugin's
// (the plain path), for tests that pin a built-in fast lane to what the plain path writes.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {ConversionRun} from '../../src/convert/conversion-run.js'
import type {ConverterClass} from '../../src/convert/types.js'

export interface BuiltInOrPlugin {
  /** a folder for the input and both outputs */
  dir: string
  format: string
  converterClass: ConverterClass
  input: string
  inputName: string
  builtIn: boolean
  instanceBlockSizes?: Map<string, number>
  sorterWindow?: number
}

/** The output's bytes (latin1) and the summary without what varies between runs (time, paths, the source). */
export async function convertAs(c: BuiltInOrPlugin): Promise<{output: string; summary: unknown}> {
  const inputPath = join(c.dir, c.inputName)
  const output = join(c.dir, c.builtIn ? 'built-in.jsonl' : 'plugin.jsonl')
  writeFileSync(inputPath, c.input)
  const run = new ConversionRun({
    inputs: [inputPath],
    output,
    format: c.format,
    converterClass: c.converterClass,
    converterSource: c.builtIn ? 'built-in' : 'dir:test',
    options: {
      defaultInstanceId: 'instance',
      instanceBlockSizes: c.instanceBlockSizes ?? new Map(),
      mode: 'optimizer',
      numWorkers: 1,
      ignoreResponse: false,
      truncate: true,
    },
    sort: true,
    strict: false,
    logger: {warn: () => {}, info: () => {}},
    sorterWindow: c.sorterWindow,
  })
  const summary = (await run.run()) as unknown as Record<string, unknown>
  const {elapsedMs: _elapsed, converter: _converter, output: _output, ...rest} = summary
  return {output: readFileSync(output, 'latin1'), summary: rest}
}
