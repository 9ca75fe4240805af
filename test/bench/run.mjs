// `npm run bench`: every benchmark, one after the other.
await import('./convert.mjs')
await import('./trace.mjs')
await import('./simulate.mjs')
await import('./text.mjs')
await import('./replay.mjs')
