// Many lines to stdout: joined into chunks of ~64 KiB (one write per chunk, not per line), waiting for the stream
// to drain when it asks to, so a slow reader (a pipe) does not make output pile up in memory.
import type {Writable} from 'node:stream'

const CHUNK_CHARS = 1 << 16

export class LineOutput {
  private parts: string[] = []
  private chars = 0

  constructor(private readonly stream: Writable) {}

  /** Adds a line (without its newline); resolves at once unless a full chunk had to wait for the stream. */
  async line(text: string): Promise<void> {
    this.parts.push(text)
    this.chars += text.length + 1
    if (this.chars >= CHUNK_CHARS) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return
    const chunk = this.parts.join('\n') + '\n'
    this.parts = []
    this.chars = 0
    if (!this.stream.write(chunk)) await new Promise<void>((resolve) => this.stream.once('drain', resolve))
  }
}
