// Much output, line by line: gathered into chunks of ~64 KiB, one write per chunk instead of one per line. A TTY
// gets every line at once (someone is watching); files and pipes get chunks (process.stdout/stderr writes to them
// are synchronous on Linux, so nothing piles up in memory).

const CHUNK_CHARS = 1 << 16

export class ChunkedText {
  private parts: string[] = []
  private chars = 0
  private readonly limit: number

  /** `tty`: write each piece at once */
  constructor(
    private readonly write: (chunk: string) => void,
    tty = false,
  ) {
    this.limit = tty ? 0 : CHUNK_CHARS
  }

  /** Adds text (the caller's newlines included). */
  add(text: string): void {
    this.parts.push(text)
    this.chars += text.length
    if (this.chars >= this.limit) this.flush()
  }

  flush(): void {
    if (this.parts.length === 0) return
    const chunk = this.parts.length === 1 ? this.parts[0] : this.parts.join('')
    this.parts = []
    this.chars = 0
    this.write(chunk)
  }
}
