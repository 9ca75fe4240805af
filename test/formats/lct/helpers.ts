import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {FIXTURES} from '../../helpers/cli.js'
import {MsgpackWriter} from '../../../src/formats/lct/msgpack.js'
import {frame} from '../../../src/formats/lct/writer.js'

export const LCT = join(FIXTURES, 'lct')
export const fixture = (name: string): Buffer => readFileSync(join(LCT, name))
export const FIXTURE_NAMES = [
  'v1_header_only_placeholder',
  'v1_reserve_finish',
  'v2_full_prefetch_cycle',
  'v2_truncated_tail',
  'bad_magic',
  'v0_pr1_lmcache_version_header',
  'events_level_meta_INFERRED',
  'v2_all_codec_shapes',
]

export interface DecodedFixture {
  file: string
  size: number
  end: string
  frames: Array<{offset: number; length: number; value: unknown}>
}
export const decodedFixture = (name: string): DecodedFixture =>
  JSON.parse(readFileSync(join(LCT, `${name}.decoded.json`), 'utf8'))

/** A frame whose body is a map built from [key, value] pairs with the low-level writer (values written generically). */
export function mapFrame(entries: Array<[string | number, unknown]>, floats: string[] = []): Buffer {
  const w = new MsgpackWriter()
  w.mapHeader(entries.length)
  for (const [k, v] of entries) {
    if (typeof k === 'number') w.int(k)
    else w.str(k)
    if (floats.includes(String(k)) && typeof v === 'number') w.float64(v)
    else w.value(v)
  }
  return frame(w.bytes())
}

export const MAGIC = Uint8Array.from([0x4c, 0x4d, 0x43, 0x54])

export function headerEntries(
  over: Record<string, unknown> = {},
  drop: string[] = [],
): Array<[string, unknown]> {
  const base: Array<[string, unknown]> = [
    ['type', 'header'],
    ['magic', MAGIC],
    ['format_version', 1],
    ['level', 'storage'],
    ['trace_schema_version', 2],
    ['t_mono_start', 1.5],
    ['t_wall_start', 1750000000.25],
    ['sm_config_json', ''],
    ['sm_config_digest', ''],
  ]
  const out: Array<[string, unknown]> = base
    .filter(([k]) => !drop.includes(k))
    .map(([k, v]) => [k, k in over ? over[k] : v])
  for (const [k, v] of Object.entries(over)) if (!base.some(([b]) => b === k)) out.push([k, v])
  return out
}

export function recordEntries(
  qualname = 'pkg.op',
  args: unknown = {a: 1},
  tMono = 0.5,
): Array<[string, unknown]> {
  return [
    ['type', 'record'],
    ['t_mono', tMono],
    ['t_wall', 1750000000.5],
    ['qualname', qualname],
    ['args', args],
  ]
}

export const header = (over: Record<string, unknown> = {}, drop: string[] = []) =>
  mapFrame(headerEntries(over, drop), ['t_mono_start', 't_wall_start'])
export const record = (qualname?: string, args?: unknown, tMono?: number) =>
  mapFrame(recordEntries(qualname, args, tMono), ['t_mono', 't_wall'])
