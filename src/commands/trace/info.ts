import {statSync} from 'node:fs'
import {Args} from '@oclif/core'
import {countText, createProgressBar} from '../../cli/progress.js'
import {LmtCommand} from '../../cli/lmt-command.js'
import {renderTraceInfo, traceInfoJson, type TraceInfoJson, writeLctWarnings} from '../../cli/trace-report.js'
import {countTrace} from '../../lct/reader.js'
import {eventsSummaryLines, summarizeEvents} from '../../lct/events-summary.js'
import {lctErrorJson} from '../../cli/lct-errors.js'
import {checkMaxFrameBytes, maxFrameBytesFlag} from '../../cli/lct-flags.js'

export default class TraceInfo extends LmtCommand {
  static override summary =
    'Summarise an LMCache .lct trace: header, duration, records per operation (and the events block of an events trace)'

  static override description = `Reads the header strictly and counts the records in one streaming pass (constant memory), without decoding their arguments. A truncated tail or skipped frames are warnings on stderr; the exit code stays 0. Exit 1 when the file is not a readable trace (bad magic, unsupported version, first-generation header, …).`

  static override examples = [
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_full_prefetch_cycle.lct',
    '<%= config.bin %> <%= command.id %> <%= config.root %>/samples/lct/v2_truncated_tail.lct --json',
  ]

  static override enableJsonFlag = true

  static override args = {
    file: Args.string({description: '.lct trace file', required: true}),
  }

  static override flags = {
    'max-frame-bytes': maxFrameBytesFlag,
  }

  protected override toErrorJson(err: unknown) {
    return lctErrorJson(err, super.toErrorJson(err))
  }

  async run(): Promise<TraceInfoJson> {
    const {args, flags} = await this.parse(TraceInfo)
    const bytes = statSync(args.file, {throwIfNoEntry: false})?.size ?? 0 // a missing file: countTrace reports it
    const bar = createProgressBar({enabled: !this.jsonEnabled(), label: 'counting', unit: 'bytes'})
    const count = await countTrace(args.file, {
      maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes']),
      name: args.file,
      onProgress: (done, records) => bar.update(done, bytes, () => `${countText(records)} records`),
    }).finally(() => bar.stop())
    const events =
      count.header.level === 'events'
        ? await summarizeEvents(args.file, {maxFrameBytes: checkMaxFrameBytes(flags['max-frame-bytes'])})
        : undefined
    if (!this.jsonEnabled()) {
      const lines = [...renderTraceInfo(args.file, count), ...(events ? eventsSummaryLines(events) : [])]
      process.stdout.write(lines.join('\n') + '\n')
    }
    writeLctWarnings(
      count.warnings.map((w) => w.message),
      count.warningCount,
    )
    return {...traceInfoJson(args.file, count), ...(events ? {events} : {})}
  }
}
