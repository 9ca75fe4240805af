// The trace's time axis cut into equal bins (the over-time charts share it).

export class TimeBins {
  readonly count: number
  private readonly span: bigint

  constructor(
    readonly first: bigint,
    last: bigint,
    bins = 60,
  ) {
    this.span = last > first ? last - first : 1n
    this.count = last > first ? bins : 1
  }

  /** the bin of timestamp `ts` */
  of(ts: bigint): number {
    const b = Number(((ts - this.first) * BigInt(this.count)) / this.span)
    return b < 0 ? 0 : b >= this.count ? this.count - 1 : b
  }

  /** seconds from the first timestamp to the start of bin `b` */
  startSeconds(b: number): number {
    return Number((this.span * BigInt(b)) / BigInt(this.count)) / 1e9
  }

  /** seconds from the first timestamp to `ts` */
  seconds(ts: bigint): number {
    return Number(ts - this.first) / 1e9
  }

  widthSeconds(): number {
    return Number(this.span) / this.count / 1e9
  }
}
