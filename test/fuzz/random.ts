/** A seeded generator (Lehmer, multiplier 48271): the same seed gives the same inputs on every machine. */
export class Random {
  private state: number

  constructor(seed: number) {
    this.state = Math.floor(Math.abs(seed)) % 2147483647 || 1 // 0 would stay 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state * 48271) % 2147483647
    return this.state / 2147483647
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]
  }

  chance(p: number): boolean {
    return this.next() < p
  }
}
