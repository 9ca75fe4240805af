import {readFileSync} from 'node:fs'
import {basename} from 'node:path'
import {isLmtError, lmtError} from '../errors.js'
import {parsePythonIntText, pythonStrip, withoutBom} from '../formats/json/trim.js'
import type {ConverterRegistration} from './types.js'

function pairs(value: string, flag: string): Array<[string, string]> {
  if (value === '') return []
  return value.split(',').map((piece) => {
    const parts = piece.split(':')
    if (parts.length !== 2) throw lmtError('CLI_BAD_VALUE', flag, piece, 'of the form id:value')
    return [parts[0], parts[1]]
  })
}

/** `--instance-block-sizes "a:16, b : 32"` → Map {a → 16, b → 32}; malformed or < 1 is a usage error. */
export function parseInstanceBlockSizes(value: string | undefined): Map<string, number> {
  const out = new Map<string, number>()
  if (value === undefined) return out
  for (const [idText, sizeText] of pairs(value, '--instance-block-sizes')) {
    const piece = `${idText}:${sizeText}`
    const n = parsePythonIntText(sizeText)
    if (n === undefined) throw lmtError('CONVERT_BAD_BLOCK_SIZE', piece, 'not-integer')
    if (n < 1n) throw lmtError('CONVERT_BAD_BLOCK_SIZE', piece, 'below-one')
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw lmtError('CONVERT_BAD_BLOCK_SIZE', piece, 'too-large')
    out.set(pythonStrip(idText), Number(n))
  }
  return out
}

/** `--model-mapping "a:b,c:d"` → ordered Map (later duplicates replace earlier values). */
export function parseModelMapping(value: string | undefined): Map<string, string> | undefined {
  if (value === undefined) return undefined
  const out = new Map<string, string>()
  for (const [from, to] of pairs(value, '--model-mapping')) out.set(pythonStrip(from), pythonStrip(to))
  return out
}

/** One JSON object of the converter config (`what` names where it came from), its keys copied into `config`. */
function addConfig(config: Record<string, unknown>, text: string, what: string, example: string): void {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (err) {
    throw lmtError('CONVERT_BAD_CONFIG', what, (err as Error).message, {suggestions: [example]})
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw lmtError('CONVERT_CONFIG_NOT_OBJECT', what)
  Object.assign(config, parsed)
}

/**
 * The converter config: the file's keys, then the inline keys over them (an overridden key keeps its position).
 * Undefined when neither flag was given (converters then get no `converterConfig`).
 */
export function loadConverterConfig(
  file: string | undefined,
  inline: string | undefined,
): Record<string, unknown> | undefined {
  if (file === undefined && inline === undefined) return undefined
  // no prototype: a "__proto__" key stays a key, and a key the config lacks reads undefined whatever a plugin did
  const config: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  if (file !== undefined) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch (err) {
      throw lmtError('CONVERT_CONFIG_UNREADABLE', file, (err as Error).message)
    }
    addConfig(config, withoutBom(text), file, `${file} must hold one JSON object, e.g. {"key": "value"}`)
  }
  if (inline !== undefined && inline !== '')
    addConfig(
      config,
      inline,
      '--converter-config-json',
      `pass one JSON object in single quotes, e.g. --converter-config-json '{"key": "value"}'`,
    )
  return config
}

/** File name without its last extension (a dot that is the first or last character does not count). */
export function fileStem(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot > 0 && dot < name.length - 1 ? name.slice(0, dot) : name
}

/**
 * The automatic output path, in the current folder (as simulate and report write theirs): `<stem>_optimizer.jsonl`
 * (a compressed input's `.gz`/`.zst` dropped first), or `merged_optimizer.jsonl` for several inputs.
 */
export function defaultOutputPath(inputs: readonly string[]): string {
  if (inputs.length === 1)
    return `${fileStem(basename(inputs[0]).replace(/\.(gz|zst|zstd)$/i, ''))}_optimizer.jsonl`
  return 'merged_optimizer.jsonl'
}

/**
 * The converter's typed settings: what its static `parseOptions(flags, converterConfig)` returns (undefined when it
 * has none). A coded error it throws is passed on as it is; anything else it throws is a PLUGIN_CONVERTER_FAILED naming it.
 */
export function converterSettings(
  reg: ConverterRegistration,
  flags: Readonly<Record<string, unknown>>,
  converterConfig: Record<string, unknown> | undefined,
): unknown {
  const parse = reg.cls.parseOptions
  if (typeof parse !== 'function') return undefined
  try {
    return parse.call(reg.cls, flags, converterConfig)
  } catch (err) {
    if (isLmtError(err)) throw err
    throw lmtError(
      'PLUGIN_CONVERTER_FAILED',
      `${reg.className} could not read its options: ${(err as Error)?.message ?? String(err)}`,
      {cause: err},
    )
  }
}
