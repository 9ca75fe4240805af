import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'
import {describe, expect, it, vi} from 'vitest'
import {type InputLine, LineReader} from '../../../src/formats/json/line-reader.js'

/** Reads `bytes` delivered in pieces of `piece` bytes (exercises chunk boundaries). */
async function readAll(
  bytes: Buffer,
  piece = 3,
): Promise<{lines: InputLine[]; reader: LineReader; invalid: number[]}> {
  const parts: Buffer[] = []
  for (let i = 0; i < bytes.length; i += piece) parts.push(bytes.subarray(i, i + piece))
  const invalid: number[] = []
  const reader = new LineReader(Readable.from(parts), {invalidUtf8: (n) => invalid.push(n)})
  const lines: InputLine[] = []
  for await (const l of reader.lines()) lines.push(l)
  return {lines, reader, invalid}
}

/** xorshift32 from `seed`: an integer in [0, n) per call. */
function xorshift(seed: number): (n: number) => number {
  return (n) => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) % n
  }
}

/**
 * The reference: `bytes` split at universal newlines one line at a time; lines longer than `limit` bytes are
 * too long (with their length and the preview of their first 512 bytes), lines holding `bad` are invalid UTF-8.
 */
function referenceSplit(bytes: Buffer, bad: number, limit = Infinity) {
  const lines: InputLine[] = []
  const invalid: number[] = []
  const tooLong: Array<[number, number, string]> = []
  let lineNo = 0
  let start = 0
  for (let i = 0; i <= bytes.length; i++) {
    const atEnd = i === bytes.length
    if (!atEnd && bytes[i] !== 0x0a && bytes[i] !== 0x0d) continue
    if (atEnd && start === bytes.length) break
    const lineBytes = bytes.subarray(start, i)
    lineNo++
    const text = lineBytes.toString('utf8').trim()
    if (lineBytes.length > limit)
      tooLong.push([lineNo, lineBytes.length, lineBytes.subarray(0, 512).toString('utf8').trim()])
    else if (lineBytes.includes(bad)) invalid.push(lineNo)
    else if (text.length > 0) lines.push({lineNo, text})
    if (!atEnd && bytes[i] === 0x0d && bytes[i + 1] === 0x0a) i++
    start = i + 1
  }
  return {lines, invalid, tooLong, lineCount: lineNo}
}

describe('LineReader', () => {
  it.each([1, 2, 3, 7, 64])('splits universal newlines with %i-byte pieces', async (piece) => {
    const {lines, reader} = await readAll(Buffer.from('a\nb\r\nc\rd\r\r\ne\n\n  f  \n\u00a0\ng'), piece)
    expect(lines).toEqual([
      {lineNo: 1, text: 'a'},
      {lineNo: 2, text: 'b'},
      {lineNo: 3, text: 'c'},
      {lineNo: 4, text: 'd'},
      {lineNo: 6, text: 'e'},
      {lineNo: 8, text: 'f'},
      {lineNo: 10, text: 'g'},
    ])
    expect(reader.linesRead).toBe(10)
    expect(reader.blankLines).toBe(3)
  })

  it('skips a BOM at the start only', async () => {
    const {lines} = await readAll(Buffer.from('\ufeffx\n\ufeffy\n'), 1)
    expect(lines.map((l) => l.text)).toEqual(['x', '\ufeffy'])
  })

  it('reports invalid UTF-8 lines and keeps counting', async () => {
    const bytes = Buffer.concat([Buffer.from('ok\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from('é\n')])
    const {lines, invalid, reader} = await readAll(bytes, 2)
    expect(invalid).toEqual([2])
    expect(lines).toEqual([
      {lineNo: 1, text: 'ok'},
      {lineNo: 3, text: 'é'},
    ])
    expect(reader.linesRead).toBe(3)
  })

  it('counts a final line without terminator, and nothing for an empty file', async () => {
    expect((await readAll(Buffer.from('x\ny'))).lines.map((l) => l.lineNo)).toEqual([1, 2])
    const empty = await readAll(Buffer.alloc(0))
    expect(empty.lines).toEqual([])
    expect(empty.reader.linesRead).toBe(0)
    expect((await readAll(Buffer.from('x\n'))).reader.linesRead).toBe(1)
  })

  it('counts bytes read', async () => {
    const {reader} = await readAll(Buffer.from('abc\ndef\n'), 3)
    expect(reader.bytesRead).toBe(8)
  })

  it('matches a reference splitter on large random inputs (decode pieces, CRLF and long lines across them)', async () => {
    const rand = xorshift(0x2545f491)
    const terminators = ['\n', '\r\n', '\r']
    for (let round = 0; round < 6; round++) {
      const parts: Buffer[] = []
      let size = 0
      while (size < 400_000) {
        const kind = rand(20)
        const len = kind === 0 ? 70_000 + rand(90_000) : rand(300) // some lines longer than a decode piece
        let line = Buffer.from('x'.repeat(len) + (rand(4) === 0 ? ' é ' : ''))
        if (rand(50) === 0) line = Buffer.concat([line, Buffer.from([0xff])]) // invalid UTF-8
        const t = Buffer.from(terminators[rand(3)])
        parts.push(line, t)
        size += line.length + t.length
      }
      if (round % 2 === 1) parts.push(Buffer.from('tail')) // unterminated last line
      const bytes = Buffer.concat(parts)
      const want = referenceSplit(bytes, 0xff)
      const {lines, invalid, reader} = await readAll(bytes, 100_000 + rand(2_000_000))
      expect(invalid).toEqual(want.invalid)
      expect(lines.length).toBe(want.lines.length)
      expect(lines).toEqual(want.lines)
      expect(reader.linesRead).toBe(want.lineCount)
    }
  })

  it('skips lines over the limit without holding them, and keeps splitting the rest exactly', async () => {
    const rand = xorshift(0x1b873593)
    const limit = 1000
    const terminators = ['\n', '\r\n', '\r']
    for (let round = 0; round < 8; round++) {
      const parts: Buffer[] = []
      for (let k = 0; k < 400; k++) {
        const len = rand(8) === 0 ? limit - 2 + rand(5) : rand(6) === 0 ? limit + rand(6000) : rand(200)
        let line = Buffer.from((rand(3) === 0 ? ' é' : '') + 'y'.repeat(len))
        if (rand(40) === 0) line = Buffer.concat([line, Buffer.from([0xfe])]) // invalid UTF-8
        parts.push(line, Buffer.from(terminators[rand(3)]))
      }
      if (round % 2 === 1) parts.push(Buffer.from('z'.repeat(rand(3) === 0 ? 3000 : 10))) // unterminated tail
      const bytes = Buffer.concat(parts)
      const want = referenceSplit(bytes, 0xfe, limit)
      const piece = [1, 7, 333, 999, 1001, 4096][round % 6]
      const chunks: Buffer[] = []
      for (let i = 0; i < bytes.length; i += piece) chunks.push(bytes.subarray(i, i + piece))
      const long: Array<[number, number, string]> = []
      const invalid: number[] = []
      const reader = new LineReader(
        Readable.from(chunks),
        {tooLong: (n, preview, size) => long.push([n, size, preview]), invalidUtf8: (n) => invalid.push(n)},
        {maxLineBytes: limit},
      )
      const lines: InputLine[] = []
      for await (const l of reader.lines()) lines.push(l)
      expect(long.length).toBeGreaterThan(10)
      expect(long).toEqual(want.tooLong)
      expect(invalid).toEqual(want.invalid)
      expect(lines).toEqual(want.lines)
      expect(reader.linesRead).toBe(want.lineCount)
      expect(reader.tooLong).toBe(want.tooLong.length)
    }
  })

  it('keeps an over-long line and its CRLF together across empty chunks', async () => {
    const long: number[] = []
    const reader = new LineReader(
      Readable.from([Buffer.from('x'.repeat(50) + '\r'), Buffer.alloc(0), Buffer.from('\na\n')]),
      {tooLong: (n) => long.push(n)},
      {maxLineBytes: 10},
    )
    const lines: InputLine[] = []
    for await (const l of reader.lines()) lines.push(l)
    expect(long).toEqual([1])
    expect(lines).toEqual([{lineNo: 2, text: 'a'}])
  })

  it('reads a file without line breaks as one over-long line, in pieces, never whole', async () => {
    const piece = Buffer.alloc(1 << 20, 0x61)
    const chunks = Array.from({length: 48}, () => piece)
    const long: number[] = []
    const reader = new LineReader(
      Readable.from([...chunks, Buffer.from('\n{"a": 1}\n')]),
      {tooLong: (_n, _preview, size) => long.push(size)},
      {maxLineBytes: 4 << 20},
    )
    const lines: InputLine[] = []
    for await (const l of reader.lines()) lines.push(l)
    expect(long).toEqual([48 << 20])
    expect(lines).toEqual([{lineNo: 2, text: '{"a": 1}'}])
  })
})

describe('LineReader.lineBatches', () => {
  async function both(bytes: Buffer, piece: number, opts: {maxLines?: number; maxBytes?: number}) {
    const parts: Buffer[] = []
    for (let i = 0; i < bytes.length; i += piece) parts.push(bytes.subarray(i, i + piece))
    const invalidA: number[] = []
    const a = new LineReader(Readable.from(parts), {invalidUtf8: (n) => invalidA.push(n)})
    const want: InputLine[] = []
    for await (const l of a.lines()) want.push(l)
    const invalidB: number[] = []
    const b = new LineReader(Readable.from(parts), {invalidUtf8: (n) => invalidB.push(n)})
    const got: InputLine[] = []
    const viaLine: InputLine[] = []
    let batches = 0
    for await (const batch of b.lineBatches(opts)) {
      batches++
      expect(batch.count).toBeGreaterThan(0)
      for (let i = 0; i < batch.count; i++) {
        got.push({lineNo: batch.lineNos[i], text: batch.text(i)})
        const line = batch.line(i)
        viaLine.push({lineNo: line.lineNo, text: line.text})
      }
    }
    return {want, got, viaLine, a, b, invalidA, invalidB, batches}
  }

  it('gives the lines, numbers and counts of lines(), trimming Python whitespace beyond ASCII too', async () => {
    const spaces = [
      ' ',
      '\t',
      '\x1c',
      '\x1f',
      '\x0b',
      '\u0085',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u2028',
      '\u202f',
      '\u3000',
    ]
    const rand = xorshift(0x9e3779b9)
    const words = ['{"a": 1}', 'é', 'x', '\u3000y\u3000', 'z\u00a0', '\u0085', '日本', '']
    for (let round = 0; round < 8; round++) {
      const parts: Buffer[] = [Buffer.from(round % 2 === 0 ? '\ufeff' : '')]
      for (let k = 0; k < 3000; k++) {
        let line = ''
        for (let j = rand(4); j > 0; j--) line += spaces[rand(spaces.length)]
        line += words[rand(words.length)]
        if (rand(3) === 0) line += 'q'.repeat(rand(200))
        for (let j = rand(4); j > 0; j--) line += spaces[rand(spaces.length)]
        parts.push(Buffer.from(line))
        if (rand(60) === 0) parts.push(Buffer.from([0xff])) // invalid UTF-8
        parts.push(Buffer.from(['\n', '\r\n', '\r'][rand(3)]))
      }
      const bytes = Buffer.concat(parts)
      const r = await both(bytes, 1 + rand(5000), {maxLines: 1 + rand(40), maxBytes: 64 + rand(4000)})
      expect(r.got).toEqual(r.want)
      expect(r.viaLine).toEqual(r.want)
      expect(r.invalidB).toEqual(r.invalidA)
      expect([r.b.linesRead, r.b.blankLines, r.b.bytesRead]).toEqual([
        r.a.linesRead,
        r.a.blankLines,
        r.a.bytesRead,
      ])
      expect(r.batches).toBeGreaterThan(10)
    }
  })

  it('matches lines() on large random inputs with long lines across chunks', async () => {
    const rand = xorshift(0x85ebca6b)
    const parts: Buffer[] = []
    for (let size = 0; size < 600_000;) {
      const line = Buffer.from('y'.repeat(rand(20) === 0 ? 70_000 + rand(50_000) : rand(500)) + ' ')
      const t = Buffer.from(['\n', '\r\n', '\r'][rand(3)])
      parts.push(line, t)
      size += line.length + t.length
    }
    parts.push(Buffer.from('tail'))
    const r = await both(Buffer.concat(parts), 100_000 + rand(1_000_000), {})
    expect(r.got).toEqual(r.want)
    expect(r.b.linesRead).toBe(r.a.linesRead)
  })
})

describe('LineReader on a file read into reused buffers, with recycled batches', () => {
  type Seen = {lines: InputLine[]; long: Array<[number, number, string]>; invalid: number[]; counts: number[]}
  async function read(path: string, opts: ConstructorParameters<typeof LineReader>[2], batches: boolean) {
    const seen: Seen = {lines: [], long: [], invalid: [], counts: []}
    const reader = new LineReader(
      path,
      {
        tooLong: (n, preview, size) => seen.long.push([n, size, preview]),
        invalidUtf8: (n) => seen.invalid.push(n),
      },
      opts,
    )
    if (batches)
      for await (const batch of reader.lineBatches({maxLines: 50, maxBytes: 3000, recycle: true}))
        for (let i = 0; i < batch.count; i++) seen.lines.push({lineNo: batch.lineNos[i], text: batch.text(i)})
    else for await (const l of reader.lines()) seen.lines.push(l)
    seen.counts = [reader.linesRead, reader.blankLines, reader.bytesRead, reader.tooLong]
    return seen
  }

  it('gives the lines, events and counts of the plain read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmt-line-reader-'))
    try {
      const rand = xorshift(0x3c6ef372)
      const limit = 2000
      for (let round = 0; round < 8; round++) {
        const parts: Buffer[] = [Buffer.from(round % 3 === 0 ? '\ufeff' : '')]
        for (let k = 0; k < 600; k++) {
          const len = rand(10) === 0 ? limit - 2 + rand(5) : rand(12) === 0 ? limit + rand(9000) : rand(300)
          let line = Buffer.from((rand(3) === 0 ? ' é' : '') + 'y'.repeat(len) + (rand(5) === 0 ? ' ' : ''))
          if (rand(40) === 0) line = Buffer.concat([line, Buffer.from([0xfe])]) // invalid UTF-8
          parts.push(line, Buffer.from(['\n', '\r\n', '\r', '\n\n'][rand(4)]))
        }
        if (round % 2 === 1) parts.push(Buffer.from('z'.repeat(rand(3) === 0 ? 3000 : 10))) // unterminated tail
        const path = join(dir, `t${round}.jsonl`)
        writeFileSync(path, Buffer.concat(parts))
        const chunkBytes = [61, 7919, 333, 1999, 2001, 4096, 65536, 1 << 20][round]
        const plain = await read(path, {maxLineBytes: limit, chunkBytes}, false)
        expect(plain.long.length).toBeGreaterThan(10)
        expect(plain.invalid.length).toBeGreaterThan(3)
        for (const batches of [false, true])
          expect(
            await read(path, {maxLineBytes: limit, chunkBytes, reuseReadBuffers: true}, batches),
          ).toEqual(plain)
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('joins a line cut by a chunk boundary without copying the rest of the chunk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmt-line-reader-'))
    const concat = vi.spyOn(Buffer, 'concat')
    try {
      const path = join(dir, 'cut.jsonl')
      const lines = Array.from({length: 3000}, (_, i) => `{"n": ${i}, "pad": "${'p'.repeat(i % 90)}"}`)
      writeFileSync(path, lines.join('\n') + '\n')
      const got: string[] = []
      for await (const l of new LineReader(path, {}, {chunkBytes: 4096, reuseReadBuffers: true}).lines())
        got.push(l.text)
      expect(got).toEqual(lines)
      // ~60 chunks, each starting inside a line: what is joined is one line per chunk, not the chunk
      const joined = concat.mock.results.reduce((n, r) => n + (r.value as Buffer).length, 0)
      expect(concat.mock.calls.length).toBeGreaterThan(40)
      expect(joined).toBeLessThan(concat.mock.calls.length * 200)
    } finally {
      concat.mockRestore()
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('reports a missing file as the plain read does', async () => {
    const missing = join(tmpdir(), 'lmt-no-such-file.jsonl')
    const fail = async (reuseReadBuffers: boolean) => {
      try {
        for await (const _ of new LineReader(missing, {}, {reuseReadBuffers}).lines());
      } catch (err) {
        return [(err as NodeJS.ErrnoException).code, (err as Error).message]
      }
      return undefined
    }
    expect(await fail(true)).toEqual(await fail(false))
    expect((await fail(true))?.[0]).toBe('ENOENT')
  })
})
