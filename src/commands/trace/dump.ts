import {Args, Flags} from '@oclif/core'
import {ChunkedText} from '../../cli/chunked-text.js'
import {LmtCommand} from '../../cli/lmt-command.js'
import {lctErrorJson} from '../../cli/lct-errors.js'
import {checkMaxFrameBytes, maxFrameBytesFlag} from '../../cli/lct-flags.js'
import {STDIO, stdinAsFile} from '../../cli/stdin-file.js'
import {integerFlag} from '../../util/number-flags.js'
import {writeLctWarnings} from '../../cli/trace-report.js'
import {decodeArgs} from '../../lct/codecs.js'
import {decodeBody, type RawMap} from '../../lct/msgpack.js'
import {readable} from '../../lct/readable.js'
import {openTrace} from '../../lct/reader.js'

export default class TraceDump extends LmtCommand {
  static override summary =
    'Print every frame of an .lct trace as one JSON line (header first), for debugging'

  static override description = `Each line holds the frame number, byte offset, body length, kind and the decoded value. Record arguments are codec-decoded ({"$ObjectKey": …}); --raw shows the wire form ({"__t__": …, "v": …}) exactly as the file holds it. Bytes print as {"$bytes_hex"}, integers beyond 2^53 as {"$int"}. The last line says how reading ended.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct',
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --limit 10',
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct --raw --limit 3',
  ]

  static override args = {
    file: Args.string({
      description: '.lct trace file (gzip or zstd compressed too; - for standard input)',
      required: true,
    }),
  }

  static override flags = {
    limit: integerFlag({summary: 'Print at most N record frames after the header.', min: 0}),
    raw: Flags.boolean({summary: 'Do not codec-decode record arguments.', default: false}),
    'max-frame-bytes': maxFrameBytesFlag,
  }

  // the frames are JSON lines already; --json makes errors JSON documents too, as in every command
  static override enableJsonFlag = true

  protected override toErrorJson(err: unknown) {
    return lctErrorJson(err, super.toErrorJson(err))
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(TraceDump)
    let closed = false
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') {
        closed = true
        process.exit(0)
      }
    })
    const lines = new ChunkedText((chunk) => process.stdout.write(chunk), process.stdout.isTTY)
    const out = (obj: unknown): void => {
      if (!closed) lines.add(JSON.stringify(obj) + '\n')
    }
    const reader = await openTrace(args.file === STDIO ? await stdinAsFile() : args.file, {
      maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes']),
      name: args.file === STDIO ? '<stdin>' : args.file,
    })
    out({
      frame: 0,
      offset: 0,
      length: reader.headerLength,
      kind: 'header',
      value: readable(decodeBody(reader.headerBody)),
    })
    let shown = 0
    let end: string | undefined
    try {
      for await (const f of reader.frames()) {
        if (flags.limit !== undefined && shown >= flags.limit) {
          end = 'limit reached'
          break
        }
        shown++
        const head = {frame: f.index, offset: f.offset, length: f.length, kind: f.kind}
        if (f.kind === 'oversized') out(head)
        else if (f.kind === 'malformed') out({...head, error: f.error})
        else {
          const value = decodeBody(f.body as Uint8Array) as RawMap
          if (flags.raw) out({...head, value: readable(value)})
          else {
            try {
              const decoded = Object.assign(Object.create(null) as RawMap, value)
              out({
                ...head,
                value: readable({...spread(decoded), args: decodeArgs(value.args as RawMap)}, true),
              })
            } catch (err) {
              out({...head, value: readable(value), decode_error: (err as Error).message})
            }
          }
        }
      }
    } finally {
      // lines read before an error are shown before it
      if (!closed) lines.flush()
    }
    await reader.close()
    if (end === undefined) {
      const last = reader.state.warnings.find(
        (w) => w.code === 'LMT_LCT_TRUNCATED_BODY' || w.code === 'LMT_LCT_TRUNCATED_PREFIX',
      )
      end = reader.state.truncated && last ? last.message : 'clean EOF'
    }
    out({end})
    if (!closed) lines.flush()
    writeLctWarnings(
      reader.state.warnings.map((w) => w.message),
      reader.state.warningCount,
    )
  }
}

/** The map's entries in file order as a null-prototype object (never an ordinary object: keys may be __proto__). */
function spread(m: RawMap): RawMap {
  const o = Object.create(null) as RawMap
  for (const k of Object.keys(m)) o[k] = m[k]
  return o
}
