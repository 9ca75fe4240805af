// Puts convert's accelerators in (seams.ts): the doors that run conversions import this module.
import {useAccelerators} from '../seams.js'
import {mapBatchesOnWorkers} from './batch-workers.js'
import {deferredRecordSize, writeRecordLine} from './record-lines.js'

useAccelerators({
  batchWorkers: mapBatchesOnWorkers,
  recordLines: {deferredSize: deferredRecordSize, write: writeRecordLine},
})
