// Puts convert's accelerators in (seams.ts): the doors that run conversions import this module.
import {useAccelerators} from '../seams.js'
import {mapBatchesOnWorkers} from './batch-workers.js'
import {encodedLines} from './encoded-lines.js'
import {lineTimestamp} from './line-timestamp.js'
import {mergeStretches} from './merge-stretches.js'

useAccelerators({batchWorkers: mapBatchesOnWorkers, encodedLines, mergeStretches, lineTimestamp})
