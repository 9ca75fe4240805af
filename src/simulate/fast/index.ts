// simulate's accelerators, put into the seam (seams.ts) when this module is loaded (the door, index.ts, loads it):
// the byte scanner of trace rows and the sweep's worker threads. Each has a differential test against the plain
// path (test/simulate/fast/).
import {useAccelerators} from '../seams.js'
import {RowByteScanner} from './row-scan-bytes.js'
import {sweepWorkers} from './sweep-workers.js'

useAccelerators({rowScanner: () => new RowByteScanner(), sweepWorkers})
