// A counted lock with a time-to-live, evaluated against the replay clock (docs/storage-replay.md §6.4).

export class TtlLock {
  count = 0
  expiry = -Infinity

  constructor(readonly ttl: number) {}

  expired(now: number): boolean {
    return now >= this.expiry
  }

  /** Drops a leaked lock whose TTL passed; true when it did (counted by the caller). */
  expire(now: number): boolean {
    if (this.count > 0 && this.expired(now)) {
      this.count = 0
      return true
    }
    return false
  }

  lock(now: number): void {
    if (this.expired(now)) this.count = 1
    else this.count += 1
    this.expiry = now + this.ttl
  }

  unlock(now: number): void {
    if (this.expired(now)) this.count = 0
    else if (this.count > 0) this.count -= 1
  }

  isLocked(now: number): boolean {
    return this.count > 0 && !this.expired(now)
  }
}
