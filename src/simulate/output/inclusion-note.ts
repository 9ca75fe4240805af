// The note every hit-rate-against-capacity curve carries (the sweep plot, the report's chart).

/**
 * Why a sweep curve may fall as the capacity grows (docs/simulate.md §6.6): a prefix cache here has no inclusion
 * property. Said under every sweep plot, first of all when this curve does fall somewhere.
 */
export function inclusionNote(curve: ReadonlyArray<{capacity: number; rate: number}>): string {
  const sorted = [...curve].sort((a, b) => a.capacity - b.capacity)
  const falls = sorted.some((p, i) => i > 0 && p.rate < sorted[i - 1].rate)
  const why =
    'a write does not refresh a live block and a miss does not insert, so a larger cache can hit less (no inclusion property)'
  return falls ? `Not monotone, and correct: ${why}` : `The curve may fall: ${why}`
}
