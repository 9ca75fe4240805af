import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')

/** What a third-party plugin can import of lmt: `lmt`, `lmt/scan`, `lmt/flags`, `lmt/values`, `lmt/converter`. */
const PUBLIC_ENTRIES = new Set([
  'src/index.ts',
  'src/scan.ts',
  'src/flags.ts',
  'src/values.ts',
  'src/converter.ts',
])

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort()
}

/**
 * The repository paths (`src/x.ts`) of the relative modules a file imports: static, re-exported and dynamic; with
 * `loaded`, only what loads with it (no `import type` / `export type`, no dynamic import).
 */
function importsOf(file: string, {loaded = false} = {}): string[] {
  let text = readFileSync(join(ROOT, file), 'utf8')
  if (loaded) text = text.replace(/^\s*(?:import|export)\s+type\b[^'"]*?\bfrom\s*['"][^'"]+['"]/gms, '')
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...(loaded ? [] : text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)),
  ].map((m) => m[1])
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'))
}

/** Every module `file` loads when it runs (statically), itself included. */
function loadedBy(file: string): Set<string> {
  const seen = new Set<string>()
  const walk = (f: string): void => {
    if (seen.has(f)) return
    seen.add(f)
    for (const next of importsOf(f, {loaded: true})) walk(next)
  }
  walk(file)
  return seen
}

/** The built-ins' line-mapper modules: what `sharedModule('<name>')` hands a worker thread to load. */
const WORKER_MODULES = [
  ...new Set(
    sources('plugins').flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/\bsharedModule\(\s*'([^']+)'\s*\)/g)].map(
        (m) => `plugins/converters/_shared/${m[1]}.ts`,
      ),
    ),
  ),
].sort()

describe('plugin boundaries', () => {
  it('reads the imports it checks (a check that sees nothing proves nothing)', () => {
    expect(importsOf('src/commands/convert.ts')).toContain('src/plugins/converter-discovery.ts')
    expect(importsOf('plugins/converters/mooncake.ts')).toContain('plugins/converters/qwen-bailian.ts')
    expect(importsOf('plugins/converters/text-trace.ts')).toContain('src/index.ts')
  })

  it('finds the modules that worker threads load, and sees through type-only imports', () => {
    expect(WORKER_MODULES).toEqual([
      'plugins/converters/_shared/hash-id-rows.ts',
      'plugins/converters/_shared/publisher-events.ts',
      'plugins/converters/_shared/text-rows.ts',
    ])
    expect(loadedBy('src/index.ts')).toContain('src/lct/reader.ts')
    expect(loadedBy('plugins/converters/qwen-bailian.ts')).toContain('src/converter.ts')
    expect(loadedBy('plugins/converters/_shared/hash-id-rows.ts')).toContain('src/values.ts')
    expect(importsOf('plugins/converters/_shared/hash-id-rows.ts')).toContain('src/index.ts') // its types
  })

  // `lmt` loads the converter framework, the .lct library and the replay contract: ~45 ms more before a worker's
  // first batch (src/values.ts)
  it.each(WORKER_MODULES)(
    '%s loads no value of `lmt` itself on its worker thread (lmt/values instead)',
    (file) => {
      expect([...loadedBy(file)].filter((f) => f === 'src/index.ts')).toEqual([])
    },
  )

  // every conversion discovers every built-in converter: what one of them loads, all of them pay for
  it.each(sources('plugins/converters'))(
    '%s loads `lmt/converter`, not all of `lmt` (the .lct library is imported by the conversion that needs it)',
    (file) => {
      expect([...loadedBy(file)].filter((f) => f === 'src/index.ts')).toEqual([])
    },
  )

  it.each(sources('src/commands'))('%s imports no plugin', (file) => {
    expect(importsOf(file).filter((p) => p.startsWith('plugins/'))).toEqual([])
  })

  it.each(sources('plugins'))('%s imports of lmt only its public entries', (file) => {
    const inside = importsOf(file).filter((p) => p.startsWith('src/') && !PUBLIC_ENTRIES.has(p))
    expect(inside).toEqual([])
  })
})
