// Rows held in memory (sweeps, oracles, a re-sorted trace; input/sorted-rows.ts loads them) played through a
// Player, the play timed apart from the writing of deferred CSV rows. ("Play" is simulate's pass of trace rows
// through the engine, the Optimizer's trace replay; `lmt replay` of .lct traces is the other thing.)
import type {TraceRow} from '../input/trace-rows.js'
import {Player, type PlayerOptions} from './player.js'

/** rows played between two writes of deferred CSV rows (which stay out of the play's time) */
export const PLAY_BATCH = 256

/**
 * Plays rows held in memory (sorted): the player, the seconds in the play and those writing deferred CSV rows
 * between its batches. `onBatch(done, total)`: rows played so far, after each batch (for a progress bar).
 */
export function playRows(
  rows: readonly TraceRow[],
  make: () => Player,
  onBatch?: (done: number, total: number) => void,
): {player: Player; seconds: number; writeSeconds: number} {
  const r = make()
  let seconds = 0
  let written = 0
  try {
    for (let start = 0; start < rows.length; start += PLAY_BATCH) {
      const t0 = performance.now()
      const end = Math.min(rows.length, start + PLAY_BATCH)
      for (let i = start; i < end; i++) r.apply(rows[i])
      const t1 = performance.now()
      seconds += t1 - t0
      r.drainCsvs()
      written += performance.now() - t1
      onBatch?.(end, rows.length)
    }
    const t0 = performance.now()
    r.finish()
    seconds += performance.now() - t0
  } catch (err) {
    r.closeCsvs(false).catch(() => {}) // the files are removed; the error is the one to report
    throw err
  }
  return {player: r, seconds: seconds / 1000, writeSeconds: written / 1000}
}

/** A Player made with `opts` that has played `rows` held in memory (sorted) to the end. */
export function playInMemory(rows: readonly TraceRow[], opts: PlayerOptions): Player {
  return playRows(rows, () => new Player(opts)).player
}

/**
 * Rows held in memory (sorted) in play order with request mode's scheduled writes (docs/simulate.md §4.2), for the
 * offline passes (the stack pass, Belady): each request's write (`scheduled`, of the request's row), due `delay`
 * after it, comes before the first later row whose timestamp reaches it, or at the end. The rows are sorted and the
 * delay is constant, so writes are due in scheduling order: a FIFO suffices.
 */
export function* playOrder(
  rows: readonly TraceRow[],
  delay: bigint,
): Generator<{row: TraceRow; scheduled: boolean}> {
  const due: Array<{ts: bigint; row: TraceRow}> = []
  let next = 0
  for (const row of rows) {
    while (next < due.length && due[next].ts <= row.ts) yield {row: due[next++].row, scheduled: true}
    yield {row, scheduled: false}
    if (row.type === 'request') due.push({ts: row.ts + delay, row})
  }
  while (next < due.length) yield {row: due[next++].row, scheduled: true}
}
