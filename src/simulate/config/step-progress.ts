// A pass over rows held in memory (an oracle, a sweep's first passes) as a step of the run's progress.
import type {SimulateProgress} from './request.js'

/** The progress callback of one pass over `total` rows, or undefined when nobody shows progress. */
export function stepProgress(
  req: {onProgress?(p: SimulateProgress): void},
  label: string,
): ((done: number, total: number) => void) | undefined {
  const on = req.onProgress
  return on ? (done, total) => on({bytes: 0, total: 0, rows: 0, step: {label, done, total}}) : undefined
}
