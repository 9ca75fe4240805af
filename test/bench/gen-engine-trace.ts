// A storage trace shaped like an inference engine's traffic, written with lmt's own .lct writer.
//
//   tsx test/bench/gen-engine-trace.ts OUT.lct [--requests N] [--seed S]
//
// Each request is a prefetch cycle (submit_prefetch_task, read_prefetched_results __enter__/__exit__,
// finish_read_prefetched) then reserve_write `new` and, for 97 % of them, finish_write, all on the request's keys:
// one of 60 shared prompts (2–24 keys, picked with a skew towards the first ones) followed by 0–12 keys of its own
// (~19 keys a record, > 100k distinct keys at 20,000 requests). Objects are 1 MiB ([[2,8,256,128]] bfloat16) and
// the L1 in the header holds 256 of them, so reserve_write meets OOM and eviction all the time. Requests start 30 ms
// apart (600 s of trace time at 20,000), their records 1 ms apart. Chunk hashes are 8 seeded random bytes.
import {pathToFileURL} from 'node:url'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {rng} from './generate.mjs'
import {ROOT} from './harness.mjs'
import {benchStorageConfig, type StorageRecord, writeLct} from './gen-storage-trace.js'

type Values = typeof import('../../src/formats/lct/values.js')
type Recorder = typeof import('../../src/formats/lct/recorder.js')

const dist = <T>(p: string): Promise<T> =>
  import(pathToFileURL(join(ROOT, 'dist', 'src', p)).href) as Promise<T>

/** the replay flags that match the header's storage config */
export const ENGINE_FLAGS = ['--l1-size-gb', '0.25', '--no-l1-use-lazy', '--eviction-policy', 'LRU']
const PROMPTS = 60
/** seconds of trace time between two requests' starts: 20,000 requests span 600 s */
export const REQUEST_SECONDS = 0.03
const MODEL = 'Qwen/Qwen3-8B'

export interface EngineTraceOptions {
  requests: number
  seed?: number
}

export async function writeEngineTrace(
  path: string,
  {requests, seed = 21}: EngineTraceOptions,
): Promise<void> {
  const {ObjectKey, MemoryLayoutDesc} = await dist<Values>('formats/lct/values.js')
  const {configDigest} = await dist<Recorder>('formats/lct/recorder.js')
  const layout = new MemoryLayoutDesc([[2, 8, 256, 128]], ['torch.bfloat16'])
  const {json, digest} = configDigest(benchStorageConfig(268435456))
  const rand = rng(seed)
  const freshKey = () => {
    const h = new Uint8Array(8)
    for (let i = 0; i < 8; i++) h[i] = Math.floor(rand() * 256)
    return new ObjectKey(h, MODEL, 0, 0, '')
  }
  const prompts = Array.from({length: PROMPTS}, () =>
    Array.from({length: 2 + Math.floor(rand() * 23)}, freshKey),
  )
  function* generate(): Generator<StorageRecord> {
    for (let r = 0; r < requests; r++) {
      const prompt = prompts[Math.floor(rand() * rand() * PROMPTS)]
      const keys = [...prompt, ...Array.from({length: Math.floor(rand() * 13)}, freshKey)]
      let t = r * REQUEST_SECONDS
      const at = () => (t += 0.001)
      yield [
        at(),
        'submit_prefetch_task',
        {keys, layout_desc: layout, extra_count: 0, external_request_id: `req-${r}`},
      ]
      yield [at(), 'read_prefetched_results.__enter__', {keys}]
      yield [at(), 'read_prefetched_results.__exit__', {keys}]
      yield [at(), 'finish_read_prefetched', {keys, extra_count: 0}]
      yield [at(), 'reserve_write', {keys, layout_desc: layout, mode: 'new'}]
      if (rand() < 0.97) yield [at(), 'finish_write', {keys}]
    }
  }
  await writeLct(path, {tMonoStart: 0, smConfigJson: json, smConfigDigest: digest}, generate())
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const {positionals, values} = parseArgs({
    allowPositionals: true,
    options: {requests: {type: 'string', default: '20000'}, seed: {type: 'string', default: '21'}},
  })
  const out = positionals[0]
  if (!out) {
    process.stderr.write('usage: tsx test/bench/gen-engine-trace.ts OUT.lct [--requests N] [--seed S]\n')
    process.exit(2)
  }
  await writeEngineTrace(out, {requests: Number(values.requests), seed: Number(values.seed)})
  process.stdout.write(`wrote ${out}\n`)
}
