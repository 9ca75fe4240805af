// simulate's accelerators, which the door (index.ts) puts in through the seam (seams.ts): the byte scanner of trace
// rows, the parse thread and the sweep's worker threads. Each has a differential test against the plain path (test/simulate/fast/).
import {parseThreadFor} from './parse-thread.js'
import {RowByteScanner} from './row-scan-bytes.js'
import {sweepWorkers} from './sweep-workers.js'

export const accelerators = {
  rowScanner: () => new RowByteScanner(),
  parseThread: (bytes: number) => parseThreadFor(bytes),
  sweepWorkers,
}
