import {Args, Flags} from '@oclif/core'
import {ChunkedText} from '../../chunked-text.js'
import {LctCommand} from '../../lct-command.js'
import {checkMaxFrameBytes, maxFrameBytesFlag} from '../../lct-flags.js'
import {STDIO, stdinAsFile} from '../../stdin-file.js'
import {integerFlag} from '../../../util/number-flags.js'
import {writeLctWarnings} from '../../trace-report.js'
import {dumpTrace} from '../../../formats/lct/dump.js'

export default class TraceDump extends LctCommand {
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

  async run(): Promise<void> {
    const {args, flags} = await this.parse(TraceDump)
    // a reader that leaves early (`| head -1`) ends the command with exit 0: the standard-stream guard (LmtCommand)
    const lines = new ChunkedText((chunk) => process.stdout.write(chunk), process.stdout.isTTY)
    const out = (obj: unknown): void => lines.add(JSON.stringify(obj) + '\n')
    const dump = await dumpTrace(args.file === STDIO ? await stdinAsFile() : args.file, {
      maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes']),
      name: args.file === STDIO ? '<stdin>' : args.file,
      limit: flags.limit,
      raw: flags.raw,
    })
    try {
      for await (const entry of dump.entries) out(entry)
    } finally {
      // lines read before an error are shown before it
      lines.flush()
    }
    writeLctWarnings(
      dump.state.warnings.map((w) => w.message),
      dump.state.warningCount,
    )
  }
}
