// Output space of a line-batch mapper that hands key lists back to the main thread (read there with KeySlabs).

/**
 * Output space for the rows of one batch: the int64 words and the JSON texts of all rows in two growing buffers,
 * handed out as views once the batch is done (so the batch crosses to the main thread as two transferred buffers).
 */
export class BatchSlabs {
  words = new Uint32Array(1 << 16)
  wordCount = 0
  text = new Uint8Array(1 << 20)
  textLength = 0

  /** Empties the slabs for the next batch (their buffers are kept). */
  reset(): void {
    this.wordCount = 0
    this.textLength = 0
  }

  /** Room for `n` more keys and their JSON text; returns the word index where they go. */
  reserve(n: number): number {
    if (2 * (this.wordCount + n) > this.words.length) {
      const w = new Uint32Array(Math.max(this.words.length * 2, 2 * (this.wordCount + n)))
      w.set(this.words.subarray(0, 2 * this.wordCount))
      this.words = w
    }
    this.reserveText(n * 22 + 2)
    return this.wordCount
  }

  /** Room for `bytes` more bytes of text. */
  reserveText(bytes: number): void {
    const needText = this.textLength + bytes
    if (needText > this.text.length) {
      const t = new Uint8Array(Math.max(this.text.length * 2, needText))
      t.set(this.text.subarray(0, this.textLength))
      this.text = t
    }
  }
}
