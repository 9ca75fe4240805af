/** A small deterministic generator of numbers in [0, 1) for property checks that must replay from a seed. */
export function lcg(seed: number): () => number {
  let x = seed >>> 0
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0
    return x / 2 ** 32
  }
}
