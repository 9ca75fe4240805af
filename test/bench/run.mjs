// `npm run bench`: every benchmark, one after the other (run with tsx, which loads the TypeScript ones).
await import('./convert.mjs')
await import('./info.bench.ts')
await import('./simulate.bench.ts')
await import('./simulate-e2e.bench.ts')
await import('./startup.bench.ts')
await import('./text.mjs')
await import('./replay.bench.ts')
await import('./lmcache-lookup.bench.ts')
