// Replay hot path: ObjectKey wrappers decoded once per distinct byte sequence (lct.md §11).
import {decodeValue} from './codecs.js'
import {MsgpackReader, type RawMap, type RawValue} from './msgpack.js'
import {ObjectKey} from './values.js'

const PREFIX = Buffer.from([0x82, 0xa5, ...Buffer.from('__t__'), 0xa9, ...Buffer.from('ObjectKey')])
const MAX_ENTRIES = 1 << 16

/** A bounded cache of decoded ObjectKeys by their wire bytes (cleared when full). */
export class ObjectKeyInterner {
  private readonly cache = new Map<string, ObjectKey>()

  lookup(text: string): ObjectKey | undefined {
    return this.cache.get(text)
  }

  remember(text: string, key: ObjectKey): void {
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear()
    this.cache.set(text, key)
  }
}

/**
 * A reader that returns ObjectKey wrappers as interned ObjectKey instances (so the key, its id and its validation
 * are computed once per distinct key). A wrapper whose payload does not decode stays a raw map, so the record is
 * skipped at argument decoding exactly as without interning.
 */
export class InterningReader extends MsgpackReader {
  constructor(
    buf: Uint8Array,
    start: number,
    end: number,
    private readonly interner: ObjectKeyInterner,
  ) {
    super(buf, start, end)
  }

  override value(): RawValue {
    const p = this.pos
    const buf = this.buf
    if (buf[p] === 0x82 && p + PREFIX.length <= this.end) {
      let match = true
      for (let i = 1; i < PREFIX.length; i++) {
        if (buf[p + i] !== PREFIX[i]) {
          match = false
          break
        }
      }
      if (match) {
        this.skip() // validates the whole wrapper and finds its end
        const end = this.pos
        const text = Buffer.from(buf.buffer, buf.byteOffset + p, end - p).toString('latin1')
        const hit = this.interner.lookup(text)
        if (hit) return hit as unknown as RawValue
        this.pos = p
        const raw = super.value() as RawMap
        try {
          const key = decodeValue(raw)
          if (key instanceof ObjectKey) {
            this.interner.remember(text, key)
            return key as unknown as RawValue
          }
        } catch {
          // an invalid payload: keep it raw; decodeArgs reports it
        }
        return raw
      }
    }
    return super.value()
  }
}
