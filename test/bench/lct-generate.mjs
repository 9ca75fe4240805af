// A synthetic storage-level .lct trace (3-key records, ~450 bytes each) for the trace benchmarks.
import {closeSync, openSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from './harness.mjs'

const dist = (p) => import(join(ROOT, 'dist', 'src', p))

const STORAGE_MANAGER = 'lmcache.v1.distributed.storage_manager.StorageManager'

/**
 * Writes a storage-level .lct file: the header, then one record per `[tMono, op, args]` from `records` (op is the
 * StorageManager method; args are plain values, codec-encoded here), in 4 MiB writes.
 */
export async function writeLct(path, header, records) {
  const {encodeHeaderBody, encodeRecordBody, frame} = await dist('lct/writer.js')
  const {encodeArgs} = await dist('lct/codecs.js')
  const fd = openSync(path, 'w')
  const parts = [
    frame(
      encodeHeaderBody({
        magic: Uint8Array.from([0x4c, 0x4d, 0x43, 0x54]),
        formatVersion: 1,
        level: 'storage',
        traceSchemaVersion: 2,
        tWallStart: 1750000000,
        smConfigJson: '',
        smConfigDigest: '',
        levelMeta: {},
        ...header,
      }),
    ),
  ]
  let size = parts[0].length
  for (const [t, op, args] of records) {
    const f = frame(
      encodeRecordBody({
        tMono: t,
        tWall: 1750000000 + t,
        qualname: `${STORAGE_MANAGER}.${op}`,
        args: encodeArgs(args),
      }),
    )
    parts.push(f)
    size += f.length
    if (size > 4 << 20) {
      writeSync(fd, Buffer.concat(parts))
      parts.length = 0
      size = 0
    }
  }
  writeSync(fd, Buffer.concat(parts))
  closeSync(fd)
}

/** Random reserve/finish/prefetch/enter records over 3-key groups, some keys reused. */
export async function writeStorageTrace(path, records, seed = 5) {
  const {ObjectKey, MemoryLayoutDesc} = await dist('lct/values.js')
  const {rng} = await import('./generate.mjs')
  const rand = rng(seed)
  const layout = new MemoryLayoutDesc([[2, 32, 256, 8, 128]], ['torch.bfloat16'])
  const key = (i) => {
    const h = Buffer.alloc(8)
    h.writeBigUInt64BE(BigInt(i))
    return new ObjectKey(h, 'Qwen/Qwen3-8B', 0, 0, '')
  }
  function* generate() {
    let t = 0
    let nextKey = 0
    for (let i = 0; i < records; i++) {
      t += rand() * 0.001
      const base = rand() < 0.5 && nextKey > 100 ? Math.floor(rand() * nextKey) : (nextKey += 3) - 3
      const keys = [key(base), key(base + 1), key(base + 2)]
      const r = rand()
      if (r < 0.25) yield [t, 'reserve_write', {keys, layout_desc: layout, mode: 'new'}]
      else if (r < 0.5) yield [t, 'finish_write', {keys}]
      else if (r < 0.75)
        yield [
          t,
          'submit_prefetch_task',
          {keys, layout_desc: layout, extra_count: 0, external_request_id: `req-${i}`},
        ]
      else yield [t, 'read_prefetched_results.__enter__', {keys}]
    }
  }
  await writeLct(path, {tMonoStart: 100}, generate())
}
