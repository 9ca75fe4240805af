import {closeSync, createReadStream, openSync, readSync} from 'node:fs'
import {Transform} from 'node:stream'
import {createGunzip} from 'node:zlib'
import {lmtError} from '../errors.js'

/** A compression lmt reads through: recognised by the first bytes of a file, never by its name. */
export type Compression = 'gzip' | 'zstd'

/** gzip's magic (RFC 1952), then zstd's frame magic 0xFD2FB528 little-endian (RFC 8878). */
export function compressionOfBytes(head: Uint8Array): Compression | undefined {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'gzip'
  if (head.length >= 4 && head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd)
    return 'zstd'
  return undefined
}

/** The compression of a file by its first bytes; undefined for a plain file, or one that cannot be read (the reader says why). */
export function compressionOf(path: string): Compression | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const head = new Uint8Array(4)
    const n = readSync(fd, head, 0, 4, 0)
    return compressionOfBytes(head.subarray(0, n))
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/**
 * zstd frames decompressed as they stream through (fzstd: the whole format in JavaScript, no native code; loaded only
 * when a zstd input is met).
 */
async function zstdDecompressor(): Promise<Transform> {
  const {Decompress} = await import('fzstd')
  let whole = false
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        whole = false
        d.push(chunk)
        done()
      } catch (err) {
        done(err as Error)
      }
    },
    flush(done) {
      try {
        d.push(new Uint8Array(0), true)
        // a frame cut short gives no error of its own: what was read must end where a frame does
        done(whole ? null : new Error('unexpected end of file'))
      } catch (err) {
        done(err as Error)
      }
    },
  })
  const d = new Decompress((data, final) => {
    if (data.length > 0) out.push(Buffer.from(data.buffer, data.byteOffset, data.length))
    if (final) whole = true
  })
  return out
}

/**
 * The decompressed bytes of a compressed file, chunk by chunk (bounded memory: a stream, never the whole file). A
 * file that is truncated or not a valid stream of its kind is CLI_INPUT_CORRUPT naming it; a file system error
 * passes through as it is.
 */
export async function* decompressedChunks(
  path: string,
  kind: Compression,
  chunkBytes = 1 << 20,
): AsyncGenerator<Buffer> {
  const inflate =
    kind === 'gzip' ? createGunzip({chunkSize: Math.min(chunkBytes, 1 << 20)}) : await zstdDecompressor()
  const source = createReadStream(path, {highWaterMark: chunkBytes})
  let sourceError: Error | undefined
  source.on('error', (err) => {
    sourceError = err
    inflate.destroy(err)
  })
  source.pipe(inflate)
  try {
    for await (const chunk of inflate) yield chunk as Buffer
  } catch (err) {
    if (err === sourceError) throw err
    throw lmtError('CLI_INPUT_CORRUPT', path, kind, (err as Error).message, {
      suggestions: [`check the file with "${kind === 'gzip' ? 'gzip -t' : 'zstd -t'} ${path}"`],
    })
  } finally {
    source.destroy()
    inflate.destroy()
  }
}
