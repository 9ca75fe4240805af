// One \`lmt convert\`, as a library call: the checks in their documented order (docs/convert.md §2), the converter
// the command found by the one discovery and its own flags parsed, the run (conversion-run.ts), and with --mode lct the .lct
// written from its output. The command parses and renders; nothing here prints or exits.
import {accessSync, constants, rmSync, statSync} from 'node:fs'
import {cpus} from 'node:os'
import {dirname, resolve} from 'node:path'
import {inputReadHints, lmtError} from '../errors.js'
import {LineReader} from '../formats/json/line-reader.js'
import {ensureDirectory, realOrResolved, refuseNonRegularOutput, sameFile} from '../util/output-path.js'
import {numberFlag} from '../util/number-flags.js'
import {ConversionRun, type ConvertRequest} from './conversion-run.js'
import {expandDirectoryInputs} from './directory-inputs.js'
import {bytesLayout, parseKvLayout} from './kv-layout.js'
import type {jsonlToLct} from './lct-bridge.js'
import {
  converterSettings,
  defaultOutputPath,
  loadConverterConfig,
  parseInstanceBlockSizes,
  parseModelMapping,
} from './settings.js'
import {tempPathBeside} from '../util/atomic-write.js'
import type {ConvertSummary, InputSummary} from './summary.js'
import type {ConverterRegistration, Logger} from './types.js'

/** The parsed flags of \`lmt convert\` a conversion reads (the chosen converter's own come along, by name). */
export interface ConvertFlags {
  input: string[]
  output?: string
  format: string
  mode: string
  'instance-id': string
  'instance-block-sizes'?: string
  'model-mapping'?: string
  'converter-dir'?: string[]
  'converter-module'?: string[]
  'converter-config-file'?: string
  'converter-config-json'?: string
  'num-workers': number
  'ignore-response': boolean
  truncate: boolean
  sort: boolean
  strict: boolean
  'model-name'?: string
  'kv-layout'?: string
  'bytes-per-block'?: number
  't-wall-start'?: string
  'kv-rank': number
  [flag: string]: unknown
}

/** What a conversion needs of the command that runs it. */
export interface ConvertIO {
  logger: Logger
  /**
   * The converter of -f, which the command finds by the one discovery (src/plugins/), then the strict parse: the
   * command's flags and the converter's own
   */
  converter(): Promise<{reg: ConverterRegistration; flags: ConvertFlags}>
  /** standard input as a file (for \`-i -\`) */
  stdinAsFile(): Promise<string>
  /** where \`-o -\` writes before the output is copied to standard output */
  stdoutFile(lct: boolean): string
  /** the name of a .lct output's flag given without --mode lct, if any */
  lctFlagGiven?: string
  /** --json: the document on standard output is the summary */
  json: boolean
  /** from here on the run's temporary files exist: \`cleanup\` removes them (a signal handler); returns the undo */
  interruptible(cleanup: () => void): () => void
  /** progress of a phase: bytes done of total, and traces (converting) or records (writing .lct) so far */
  progress?(phase: 'converting' | 'writing .lct', done: number, total: number, count: number): void
  /** a phase of progress is over (before the line that says what it made) */
  progressDone?(): void
  onInputDone?(summary: InputSummary): void
}

type LctSettings = Parameters<typeof jsonlToLct>[2]

/** A conversion's settings once its checks passed. */
type ConvertPlan = Awaited<ReturnType<typeof planConversion>>

/**
 * \`lmt convert\`: \`first\` is the command's flags parsed loosely (a converter's own are not known before discovery);
 * the converter's flags are parsed once it is found (\`io.converter\`). Then the checks in the documented order, the
 * run, and with --mode lct the .lct. What it made: its summary, and its output (a private file for \`-o -\`).
 */
export async function convert(first: ConvertFlags, io: ConvertIO) {
  const plan = await planConversion(first, io)
  return {summary: await run(plan, io), output: plan.output, toStdout: plan.toStdout}
}

async function planConversion(first: ConvertFlags, io: ConvertIO) {
  const {logger} = io
  // value parsing, then local files only
  const instanceBlockSizes = parseInstanceBlockSizes(first['instance-block-sizes'])
  const modelMapping = parseModelMapping(first['model-mapping'])
  for (const input of first.input) {
    if (/^https?:/i.test(input)) throw lmtError('CONVERT_REMOTE_INPUT', input)
  }
  const {reg, flags} = await io.converter()
  const given = flags.input.map((i) => (i === '-' ? 'stdin' : i)) // names the default output (a folder by its name)
  if (flags.input.filter((i) => i === '-').length > 1) throw lmtError('CLI_STDIN_TWICE', '-i')
  const toStdout = flags.output === '-'
  if (toStdout && io.json)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '-o -', '--json', {
      suggestions: [
        'standard output carries the converted records: write them to a file to have the --json summary',
      ],
    })
  const stdinPath = flags.input.includes('-') ? await io.stdinAsFile() : undefined
  flags.input = expandDirectoryInputs(
    flags.input.map((i) => (i === '-' ? (stdinPath as string) : i)),
    reg.cls,
  )
  for (const input of flags.input) checkInput(input)
  const lctMode = flags.mode === 'lct'
  if (!lctMode) {
    // the .lct output's flags mean nothing to a JSONL output: refused, as other formats' flags are
    if (io.lctFlagGiven)
      throw lmtError('CLI_FLAG_NEEDS', `--${io.lctFlagGiven}`, '--mode lct', {
        suggestions: ['add --mode lct to write an LMCache .lct trace, or drop the flag'],
      })
    if (flags.output !== undefined && /\.lct$/i.test(flags.output))
      logger.warn(
        `${flags.output} ends in .lct but the output is Get+Write JSONL; hint: add --mode lct to write an LMCache .lct trace`,
      )
  }
  const output = toStdout
    ? io.stdoutFile(lctMode)
    : (flags.output ??
      (lctMode ? defaultOutputPath(given).replace(/_optimizer\.jsonl$/, '.lct') : defaultOutputPath(given)))
  checkOutput(output, flags.input)
  const lct = lctMode ? await lctSettings(flags, logger) : undefined
  const converterConfig = loadConverterConfig(flags['converter-config-file'], flags['converter-config-json'])
  const settings = converterSettings(reg, flags, converterConfig)
  // what the converter is constructed with (docs/convert.md §4.1)
  const options: ConvertRequest['options'] = {
    defaultInstanceId: flags['instance-id'],
    instanceBlockSizes,
    mode: 'optimizer',
    ...(converterConfig === undefined ? {} : {converterConfig}),
    ...(settings === undefined ? {} : {settings}),
    modelMapping,
    numWorkers: flags['num-workers'] === 0 ? Math.max(1, cpus().length - 1) : flags['num-workers'],
    ignoreResponse: flags['ignore-response'],
    truncate: flags.truncate,
  }
  if (reg.format === 'qwen_bailian' && !instanceBlockSizes.has(flags['instance-id']))
    for (const input of flags.input)
      if (await looksLikeMooncake(input))
        logger.warn(
          `${input} looks like a Mooncake trace (about one id per 512 tokens, where qwen_bailian reads one per 16); hint: use -f mooncake (512-token blocks, timestamps in ms)`,
        )
  return {flags, reg, output, toStdout, lct, options}
}

/** The conversion (and with --mode lct the .lct written from its output), interruptible throughout. */
async function run(plan: ConvertPlan, io: ConvertIO): Promise<ConvertSummary> {
  const {flags, reg, output, lct} = plan
  const controller = new AbortController()
  const jsonlOutput = lct ? tempPathBeside(resolve(output)) : output
  const conversion = new ConversionRun({
    inputs: flags.input,
    output: jsonlOutput,
    format: reg.format,
    converterClass: reg.cls,
    converterSource: reg.source,
    converterPath: reg.path,
    options: plan.options,
    sort: flags.sort,
    strict: flags.strict,
    logger: io.logger,
    signal: controller.signal,
    onProgress: (p) => io.progress?.('converting', p.bytesDone, p.bytesTotal, p.traces),
    onInputDone: io.onInputDone,
  })
  const lctTemps = new Set<string>() // the .lct being written, while it is
  const undo = io.interruptible(() => {
    controller.abort()
    conversion.cleanupSync()
    if (lct) rmSync(jsonlOutput, {force: true})
    for (const t of lctTemps) rmSync(t, {force: true})
  })
  try {
    // the banner comes once an interruption is handled: from here on, Ctrl-C cleans up
    for (const line of bannerLines(plan)) io.logger.info(line)
    const summary = await conversion.run()
    if (lct) await writeLct(jsonlOutput, output, lct, {io, temps: lctTemps, summary})
    return summary
  } finally {
    undo()
  }
}

/** The banner's lines: the converter, then the instance, block sizes, truncation and model mapping. */
function bannerLines({reg, flags, options}: ConvertPlan): string[] {
  const {instanceBlockSizes, modelMapping} = options
  const sizes = [...(instanceBlockSizes as Map<string, number>)].map(([id, n]) => `${id}=${n}`).join(', ')
  return [
    `lmt convert: format ${reg.format} (${reg.className} from ${reg.source})`,
    `  instance id: ${flags['instance-id']}; block sizes: ${sizes || '(converter default)'}; truncate: ${flags.truncate}; ` +
      `model mapping: ${modelMapping ? [...modelMapping].map(([a, b]) => `${a}→${b}`).join(', ') : 'none'}`,
  ]
}

/** --mode lct: the layout, the start time and the storage config of the header (as `lmt replay` would digest it). */
async function lctSettings(flags: ConvertFlags, logger: Logger): Promise<LctSettings> {
  if (flags['kv-layout'] !== undefined && flags['bytes-per-block'] !== undefined)
    throw lmtError('CLI_FLAGS_EXCLUSIVE', '--kv-layout', '--bytes-per-block')
  const layout =
    flags['kv-layout'] !== undefined
      ? parseKvLayout(flags['kv-layout'])
      : bytesLayout(flags['bytes-per-block'] ?? 65536)
  const tWall = numberFlag('t-wall-start', flags['t-wall-start'], {
    min: 0,
    words: 'a number of epoch seconds',
  })
  if (tWall !== undefined && !Number.isFinite(tWall))
    throw lmtError('CLI_OUT_OF_RANGE', '--t-wall-start', 'a number of epoch seconds')
  const sf = flags as unknown as Record<string, unknown>
  const {storageLevel} = await import('../replay/storage/storage-level.js')
  const {storageConfigDict} = await import('../replay/storage/config.js')
  const storage = storageLevel.parseConfig(
    {...sf, 'l1-size-gb': sf['l1-size-gb'] ?? '8', 'eviction-policy': sf['eviction-policy'] ?? 'LRU'},
    undefined as never,
    (m) => logger.warn(m),
  )
  return {
    modelName: flags['model-name'],
    kvRank: flags['kv-rank'],
    layout,
    tWallStart: tWall,
    configDict: storageConfigDict(storage.config),
  }
}

/** Writes the .lct from the conversion's JSONL output (then removed), and says what it holds. */
async function writeLct(
  jsonlOutput: string,
  output: string,
  lct: LctSettings,
  o: {io: ConvertIO; temps: Set<string>; summary: ConvertSummary},
): Promise<void> {
  try {
    const jsonlBytes = statSync(jsonlOutput).size
    o.io.progress?.('writing .lct', 0, jsonlBytes, 0)
    const {jsonlToLct} = await import('./lct-bridge.js')
    const bridged = await jsonlToLct(
      jsonlOutput,
      output,
      {
        ...lct,
        onProgress: (bytes, records) => o.io.progress?.('writing .lct', bytes, jsonlBytes, records),
      },
      o.temps,
    )
    o.io.progressDone?.()
    o.summary.output = output
    o.io.logger.info(
      `  .lct: ${bridged.records} records (${bridged.gets} gets, ${bridged.writes} writes${bridged.skipped ? `, ${bridged.skipped} not mappable` : ''})`,
    )
  } finally {
    rmSync(jsonlOutput, {force: true})
  }
}

/**
 * Whether the first rows of an input have far fewer hash ids than 16-token blocks (at most one per 128 tokens, in
 * nine rows of ten of those long enough to tell, among its first 1,000 lines): the shape of a Mooncake trace given
 * to qwen_bailian.
 */
async function looksLikeMooncake(path: string): Promise<boolean> {
  let rows = 0
  let sparse = 0
  let lines = 0
  try {
    for await (const line of new LineReader(path, {tooLong: () => {}, invalidUtf8: () => {}}).lines()) {
      if (rows >= 200 || ++lines > 1000) break
      let row: {input_length?: unknown; hash_ids?: unknown}
      try {
        row = JSON.parse(line.text) as typeof row
      } catch {
        continue
      }
      if (typeof row.input_length !== 'number' || !Array.isArray(row.hash_ids) || row.input_length < 1024)
        continue
      rows++
      if (row.hash_ids.length * 128 <= row.input_length) sparse++
    }
  } catch {
    return false // the conversion reports an unreadable input
  }
  return rows >= 5 && sparse >= 0.9 * rows
}

function checkInput(input: string): void {
  let st
  try {
    st = statSync(input)
  } catch (err) {
    throw lmtError('CONVERT_INPUT_NOT_FOUND', input, {
      suggestions: inputReadHints(err, 'an input file'),
    })
  }
  if (!st.isFile())
    throw lmtError('CONVERT_INPUT_UNREADABLE', input, 'not a regular file', {
      suggestions: inputReadHints({code: st.isDirectory() ? 'EISDIR' : undefined}, 'an input file'),
    })
  try {
    accessSync(input, constants.R_OK)
  } catch (err) {
    throw lmtError('CONVERT_INPUT_UNREADABLE', input, (err as Error).message, {
      suggestions: inputReadHints(err, 'an input file'),
    })
  }
}

function checkOutput(output: string, inputs: readonly string[]): void {
  let st
  try {
    st = statSync(output)
  } catch {
    st = undefined
  }
  if (st?.isDirectory())
    throw lmtError('CONVERT_OUTPUT_IS_DIRECTORY', output, {suggestions: ['pass a file path with -o']})
  const target = realOrResolved(output)
  for (const input of inputs) {
    // the same path through links, or the same file by device and inode (a hard link)
    if (realOrResolved(input) === target || sameFile(input, output))
      throw lmtError('CONVERT_OUTPUT_IS_INPUT', output, input, {
        suggestions: ['choose another -o path'],
      })
  }
  refuseNonRegularOutput(output)
  ensureDirectory(dirname(resolve(output)), 'CONVERT_OUTPUT_FAILED')
}
