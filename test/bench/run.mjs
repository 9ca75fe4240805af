// `npm run bench`: every benchmark, one after the other (run with tsx, which loads the TypeScript ones).
await import('./convert.mjs')
await import('./trace.mjs')
await import('./simulate.bench.ts')
await import('./text.mjs')
await import('./replay.mjs')
