import {join} from 'node:path'
import {TraceRecorder} from '../../src/formats/lct/recorder.js'
import {openTrace} from '../../src/formats/lct/reader.js'
import {MemoryLayoutDesc, ObjectKey} from '../../src/formats/lct/values.js'
import {replayTrace, type ReplayResult} from '../../src/replay/driver.js'
import {SM} from '../../src/replay/storage/model.js'
import {storageLevel} from '../../src/replay/storage/storage-level.js'

export const LAYOUT = new MemoryLayoutDesc([[16, 16]], ['torch.float16']) // raw 512, aligned 4096

export function key(i: number, salt = ''): ObjectKey {
  const h = Buffer.alloc(4)
  h.writeUInt32BE(i)
  return new ObjectKey(h, 'test', 0, 0, salt)
}

export const keys = (...ids: number[]) => ids.map((i) => key(i))

export type Rec = [t: number, op: string, args: Record<string, unknown>]

/** Writes a schema-2 storage trace with lmt's own recorder (placeholder header). */
export function writeTrace(path: string, records: Rec[]): string {
  const r = new TraceRecorder({path, capturesCalls: false, clock: {mono: () => 0, wall: () => 1750000000}})
  for (const [t, op, args] of records) r.writeRecord(`${SM}.${op}`, args, t, 1750000000 + t)
  r.close()
  return path
}

export async function replay(
  path: string,
  flags: Record<string, unknown>,
  extra: {recordPath?: string; pace?: 'virtual' | 'realtime'; speed?: number} = {},
): Promise<ReplayResult & {warnings: string[]}> {
  const reader = await openTrace(path)
  const header = reader.header
  await reader.close()
  const warnings: string[] = []
  const config = storageLevel.parseConfig(flags, header, (m) => warnings.push(m))
  const result = await replayTrace({
    file: path,
    level: storageLevel as never,
    config,
    header,
    pace: extra.pace ?? 'virtual',
    speed: extra.speed ?? 1,
    recordPath: extra.recordPath,
    warn: (_c, _k, m) => warnings.push(m),
  })
  return {...result, warnings}
}

export const obs = (r: ReplayResult) =>
  r.observations?.json as Record<
    string,
    Record<string, number> & {errors: Record<string, Record<string, number>>}
  > & {l2: Array<Record<string, number>>}
export const fixtureFlags = {'l1-size-gb': '0.0625', 'l1-use-lazy': false, 'eviction-policy': 'LRU'}
export {join}
