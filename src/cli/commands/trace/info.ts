import {statSync} from 'node:fs'
import {Args} from '@oclif/core'
import {countText, createProgressBar} from '../../progress.js'
import {LctCommand} from '../../lct-command.js'
import {renderTraceInfo, traceInfoJson, writeLctWarnings} from '../../trace-report.js'
import {eventsSummaryLines} from '../../../formats/lct/events-summary.js'
import {chosenDecoding} from '../../../formats/lct/fast/index.js'
import {traceInfo} from '../../../formats/lct/trace-info.js'
import {checkMaxFrameBytes, maxFrameBytesFlag} from '../../lct-flags.js'
import {STDIO, stdinAsFile} from '../../stdin-file.js'

export default class TraceInfo extends LctCommand {
  static override summary =
    'Summarise an LMCache .lct trace: header, duration, records per operation (and the events block of an events trace)'

  static override description = `Reads the header strictly and counts the records in one streaming pass (constant memory), without decoding their arguments. A truncated tail or skipped frames are warnings on stderr; the exit code stays 0. Exit 1 when the file is not a readable trace (bad magic, unsupported version, first-generation header, …).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct',
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_truncated_tail.lct --json',
    'zstd -c <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct | <%= config.bin %> <%= command.id %> -',
  ]

  static override enableJsonFlag = true

  static override args = {
    file: Args.string({
      description: '.lct trace file (gzip or zstd compressed too; - for standard input)',
      required: true,
    }),
  }

  static override flags = {
    'max-frame-bytes': maxFrameBytesFlag,
  }

  async run() {
    const {args, flags} = await this.parse(TraceInfo)
    const name = args.file === STDIO ? '<stdin>' : args.file
    const file = args.file === STDIO ? await stdinAsFile() : args.file
    const bytes = statSync(file, {throwIfNoEntry: false})?.size ?? 0 // a missing file: the reading reports it
    const bar = createProgressBar({enabled: !this.jsonEnabled(), label: 'counting', unit: 'bytes'})
    const {count, events} = await traceInfo(file, {
      maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes']),
      name,
      onProgress: (done, records) => bar.update(done, bytes, () => `${countText(records)} records`),
      decoding: chosenDecoding(),
    }).finally(() => bar.stop())
    if (!this.jsonEnabled()) {
      const lines = [...renderTraceInfo(name, count), ...(events ? eventsSummaryLines(events) : [])]
      process.stdout.write(lines.join('\n') + '\n')
    }
    writeLctWarnings(
      count.warnings.map((w) => w.message),
      count.warningCount,
    )
    // an `events`-level trace: LMCache's events block as numbers
    return {...traceInfoJson(name, count), ...(events ? {events} : {})}
  }
}
