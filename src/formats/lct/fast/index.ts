// The .lct reader's accelerators, behind its one seam (../record-decoding.ts): records whose ObjectKey and
// MemoryLayoutDesc wrappers are interned by their bytes (the replay's keys then recur as the same instances, which
// the model caches its per-key state on), and a count-only scan that builds no values. `LMT_PLAIN=1` picks the
// plain decoding instead; test/formats/lct/key-intern.test.ts and test/formats/lct/fast-scan.test.ts hold each to it.
import {decodeRecordBody, decodeRecordWith} from '../frame-decode.js'
import {plainDecoding} from '../record-decoding.js'
import type {RecordDecoding, RecordTally} from '../types.js'
import {plainPaths} from '../../../util/plain.js'
import {fastScanRecord, type ScannedRecord} from './fast-scan.js'
import {InterningReader, ObjectKeyInterner} from './key-intern.js'
import {QualnameCounter} from './qualname-counter.js'

/** Counts from the qualname's bytes and t_mono's, without building values; the exact scan for anything unusual. */
class ScanningTally implements RecordTally {
  private readonly names = new QualnameCounter()
  private readonly scanned: ScannedRecord = {tMono: 0, qualnameStart: 0, qualnameLength: 0}
  maxTMono = 0

  add(body: Uint8Array, start: number, end: number): void {
    const s = this.scanned
    if (fastScanRecord(body, start, end, s) && this.names.count(body, s.qualnameStart, s.qualnameLength)) {
      if (s.tMono > this.maxTMono) this.maxTMono = s.tMono
      return
    }
    const r = decodeRecordBody(body, start, end)
    this.names.add(r.qualname)
    if (r.tMono > this.maxTMono) this.maxTMono = r.tMono
  }

  byQualname(): Map<string, number> {
    return this.names.totals()
  }
}

export const fastDecoding: RecordDecoding = {
  decoder() {
    const interner = new ObjectKeyInterner()
    return (body, start, end) => decodeRecordWith(new InterningReader(body, start, end, interner))
  },
  tally: () => new ScanningTally(),
}

/** The decoding lmt's commands read traces with: the accelerated one, or the plain one under `LMT_PLAIN=1`. */
export function chosenDecoding(): RecordDecoding {
  return plainPaths() ? plainDecoding : fastDecoding
}
