// "Did you mean …?": the nearest of a few names by edit distance.

/** Levenshtein distance (insertions, deletions, substitutions), and adjacent swaps count as one edit. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({length: a.length + 1}, (_, i) =>
    Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2][j - 2] + 1)
      rows[i][j] = d
    }
  return rows[a.length][b.length]
}

/**
 * The candidate nearest to `input` (case-insensitive), if it is near enough to be a slip: at most a third of the
 * input's length in edits (at least 1, at most 3), or a candidate that starts with the input. Ties: the first given.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const low = input.toLowerCase()
  const limit = Math.min(3, Math.max(1, Math.floor(low.length / 3)))
  let best: string | undefined
  let bestDistance = Infinity
  for (const c of candidates) {
    const d = c.toLowerCase().startsWith(low) && low.length >= 2 ? 0.5 : editDistance(low, c.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [c, d]
  }
  return bestDistance <= limit ? best : undefined
}
