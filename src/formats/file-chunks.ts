import {open} from 'node:fs/promises'

/**
 * A file's bytes in chunks of up to `size` bytes, read into two buffers in turn: the next chunk is read while the
 * caller works on this one, so a chunk is valid until the caller asks for the next. No new buffer per chunk, so a
 * long read's memory is two chunks, not however many the garbage collector has not freed yet.
 */
export async function* fileChunks(path: string, size: number): AsyncGenerator<Buffer> {
  const file = await open(path, 'r')
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)]
  let turn = 0
  let next: Promise<{bytesRead: number}> | undefined = file.read(buffers[0], 0, size, null)
  try {
    for (;;) {
      const {bytesRead} = await next
      next = undefined
      if (bytesRead === 0) return
      const chunk = buffers[turn]
      turn ^= 1
      next = file.read(buffers[turn], 0, size, null)
      yield chunk.subarray(0, bytesRead)
    }
  } finally {
    await next?.catch(() => {})
    await file.close()
  }
}
