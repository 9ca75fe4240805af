// How a conversion holds a trace's line until its sorter writes it out. The plain store gives each line a buffer of
// its own; the accelerators may put in another that writes the same bytes (seams.ts).
import {serializeJson} from '../formats/json/serialize.js'
import type {GetRecord, WriteRecord} from './records.js'
import type {BufferedWriter} from './run-files.js'

/** Where a run's lines wait for the sorter; `L` is what the store holds for one line. */
export interface LineStore<L = unknown> {
  /** The line of `text` (UTF-8) with its newline. */
  text(text: string): L
  /** A record's line: the bytes of `serializeJson(record) + "\n"`. */
  record(record: GetRecord | WriteRecord): L
  /** The bytes of a line (about, for one not encoded yet): what the sorter counts against its window. */
  size(line: L): number
  /** Appends a line to `out`; the line is not used again. */
  write(line: L, out: BufferedWriter): void
}

/** One buffer per line, encoded as it comes. */
export const bufferPerLine: LineStore<Buffer> = {
  text: (text) => Buffer.from(text + '\n', 'utf8'),
  record: (record) => Buffer.from(serializeJson(record) + '\n', 'utf8'),
  size: (line) => line.length,
  write: (line, out) => out.range(line, 0, line.length),
}
