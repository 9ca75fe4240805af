import {pathToFileURL} from 'node:url'
import {Worker} from 'node:worker_threads'
import type {InputLine} from '../jsonl/line-reader.js'
import type {LineMapFunction, LineMapperModule, LineMapperSpec, MappedLine} from './line-mapper.js'

const BATCH_LINES = 512
const IN_FLIGHT_PER_WORKER = 3

interface Pending {
  lines: InputLine[]
  resolve: (results: unknown[]) => void
  reject: (err: Error) => void
  promise: Promise<unknown[]>
}

function moduleUrl(spec: LineMapperSpec): string {
  return spec.module.startsWith('file:') ? spec.module : pathToFileURL(spec.module).href
}

/** Runs the mapper on the main thread (small inputs, tests, one worker requested). */
async function* mapInline<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
): AsyncGenerator<MappedLine<R>> {
  const mod = (await import(moduleUrl(spec))) as LineMapperModule<R>
  const map: LineMapFunction<R> = await mod.createLineMapper(spec.config)
  for await (const lines of batches) for (const line of lines) yield {line, result: await map(line)}
}

/**
 * Maps lines on `spec.workers` worker threads in batches, yielding results in input order with a bounded number of
 * batches in flight (memory stays bounded however large the input).
 */
async function* mapOnWorkers<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
  count: number,
): AsyncGenerator<MappedLine<R>> {
  const entry = new URL('./line-worker.js', import.meta.url)
  const workers: Worker[] = []
  const waiting = new Map<number, Pending>()
  let failure: Error | undefined
  const fail = (err: Error) => {
    failure ??= err
    for (const p of waiting.values()) p.reject(err)
  }
  try {
    for (let i = 0; i < count; i++) {
      const w = new Worker(entry, {
        workerData: {module: moduleUrl(spec), config: spec.config},
        // a mapper's garbage is short-lived: a small young generation keeps the worker's footprint small
        resourceLimits: {maxYoungGenerationSizeMb: 8},
      })
      w.on('message', (msg: {id?: number; results?: unknown[]; error?: string; ready?: boolean}) => {
        if (msg.ready || msg.id === undefined) return
        const p = waiting.get(msg.id)
        if (!p) return
        waiting.delete(msg.id)
        if (msg.error) p.reject(new Error(msg.error))
        else p.resolve(msg.results as unknown[])
      })
      w.on('error', (err) => fail(err))
      w.on('exit', (code) => {
        if (code !== 0) fail(new Error(`line mapper worker exited with code ${code}`))
      })
      workers.push(w)
    }
    const queue: Pending[] = []
    let nextId = 0
    let batch: InputLine[] = []
    const send = (): void => {
      const id = nextId++
      let resolve!: (r: unknown[]) => void
      let reject!: (e: Error) => void
      const promise = new Promise<unknown[]>((res, rej) => {
        resolve = res
        reject = rej
      })
      promise.catch(() => {}) // observed when the batch is yielded
      const p: Pending = {lines: batch, resolve, reject, promise}
      waiting.set(id, p)
      queue.push(p)
      workers[id % workers.length].postMessage({id, lines: batch})
      batch = []
    }
    const maxQueue = IN_FLIGHT_PER_WORKER * workers.length
    for await (const lines of batches) {
      for (let k = 0; k < lines.length; k++) {
        batch.push(lines[k])
        if (batch.length < BATCH_LINES) continue
        send()
        while (queue.length >= maxQueue) {
          const head = queue.shift() as Pending
          const results = await head.promise
          for (let i = 0; i < head.lines.length; i++) yield {line: head.lines[i], result: results[i] as R}
        }
        if (failure) throw failure
      }
    }
    if (batch.length > 0) send()
    while (queue.length > 0) {
      const head = queue.shift() as Pending
      const results = await head.promise
      for (let i = 0; i < head.lines.length; i++) yield {line: head.lines[i], result: results[i] as R}
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
}

/**
 * Maps an input's lines, given in batches as the reader read them, with `spec`, inline or on worker threads (see
 * {@link LineMapperSpec}); results come one line at a time.
 */
export function mapLines<R>(
  batches: AsyncIterable<readonly InputLine[]>,
  spec: LineMapperSpec,
  inputBytes: number,
): AsyncIterable<MappedLine<R>> {
  const workers = spec.workers ?? 1
  // worker start-up (~50 ms each) only pays off on inputs of a few MB
  if (workers < 1 || inputBytes < (spec.inlineBelowBytes ?? 4 << 20)) return mapInline<R>(batches, spec)
  return mapOnWorkers<R>(batches, spec, workers)
}
