// The seam between the .lct reader and its accelerators (src/formats/lct/fast/): how a record frame's body becomes a
// record's fields, and how the count-only pass tallies records. The plain way is here. An accelerated one gives the
// same fields, counts and errors (MsgpackError or FieldError for a malformed body) and keeps a differential test
// against this one; the frame layer (lengths, skips, warnings) stays the reader's alone.
import {decodeRecordBody} from './frame-decode.js'
import type {RecordDecoding, RecordTally} from './types.js'

class PlainTally implements RecordTally {
  private readonly counts = new Map<string, number>()
  maxTMono = 0

  add(body: Uint8Array, start: number, end: number): void {
    const r = decodeRecordBody(body, start, end)
    this.counts.set(r.qualname, (this.counts.get(r.qualname) ?? 0) + 1)
    if (r.tMono > this.maxTMono) this.maxTMono = r.tMono
  }

  byQualname(): Map<string, number> {
    return new Map(this.counts)
  }
}

/** The plain decoding: every value built by the msgpack reader, a record counted from its decoded fields. */
export const plainDecoding: RecordDecoding = {
  decoder: () => decodeRecordBody,
  tally: () => new PlainTally(),
}
