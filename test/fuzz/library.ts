// The built library under dist/ that the fuzz targets call: the code the CLI runs, worker threads included.
import {resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import type {ConverterClass} from '../../src/convert/types.js'

/** dist/, or FUZZ_DIST: a copy of it inside the checkout, so that a long campaign survives rebuilds meanwhile */
const distRoot = process.env.FUZZ_DIST
  ? pathToFileURL(resolve(process.env.FUZZ_DIST) + '/')
  : new URL('../../dist/', import.meta.url)
const distUrl = (path: string) => new URL(path, distRoot).href

/** The built modules the targets call (run `npm run build` first). */
export async function loadLibrary() {
  const load = async <T>(path: string): Promise<T> => {
    try {
      return (await import(distUrl(path))) as T
    } catch (err) {
      throw new Error(`cannot load dist/${path} (run "npm run build" first): ${(err as Error).message}`)
    }
  }
  return {
    errors: await load<typeof import('../../src/errors.js')>('src/errors.js'),
    reader: await load<typeof import('../../src/formats/lct/reader.js')>('src/formats/lct/reader.js'),
    codecs: await load<typeof import('../../src/formats/lct/codecs.js')>('src/formats/lct/codecs.js'),
    report: await load<typeof import('../../src/cli/trace-report.js')>('src/cli/trace-report.js'),
    convert: await load<typeof import('../../src/convert/conversion-run.js')>(
      'src/convert/conversion-run.js',
    ),
    simulate: await load<typeof import('../../src/simulate/run.js')>('src/simulate/run.js'),
    allocator: await load<typeof import('../../src/convert/timestamp-allocator.js')>(
      'src/convert/timestamp-allocator.js',
    ),
    hash: await load<typeof import('../../src/hash/prefix-hash.js')>('src/hash/prefix-hash.js'),
    converters: {
      qwen_bailian: (await load<typeof import('../../plugins/converters/hash-id/qwen-bailian.js')>(
        'plugins/converters/hash-id/qwen-bailian.js',
      )) as {QwenBailianConverter: ConverterClass},
      mooncake: (await load<typeof import('../../plugins/converters/hash-id/mooncake.js')>(
        'plugins/converters/hash-id/mooncake.js',
      )) as {MooncakeConverter: ConverterClass},
      publisher_log: (await load<typeof import('../../plugins/converters/publisher-log/publisher-log.js')>(
        'plugins/converters/publisher-log/publisher-log.js',
      )) as {PublisherLogConverter: ConverterClass},
      text_trace: (await load<typeof import('../../plugins/converters/text-trace/text-trace.js')>(
        'plugins/converters/text-trace/text-trace.js',
      )) as {TextTraceConverter: ConverterClass},
      lmcache_lct: (await load<typeof import('../../plugins/converters/lmcache-lct.js')>(
        'plugins/converters/lmcache-lct.js',
      )) as {LmcacheLctConverter: ConverterClass},
    },
  }
}

export type Library = Awaited<ReturnType<typeof loadLibrary>>
