import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')

/** What a third-party plugin can import of lmt: `lmt`, `lmt/scan`, `lmt/flags`. */
const PUBLIC_ENTRIES = new Set(['src/index.ts', 'src/scan.ts', 'src/flags.ts'])

// the storage level is becoming core (src/replay/storage/storage-level.ts); until it has moved, it is the one
// built-in allowed to reach into the replay model
const MOVING_TO_CORE = new Set(['plugins/levels/storage.ts'])

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort()
}

/** The repository paths (`src/x.ts`) of the relative modules a file imports: static, re-exported and dynamic. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gms),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1])
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'))
}

describe('plugin boundaries', () => {
  it('reads the imports it checks (a check that sees nothing proves nothing)', () => {
    expect(importsOf('src/commands/convert.ts')).toContain('src/plugins/converter-discovery.ts')
    expect(importsOf('plugins/converters/mooncake.ts')).toContain('plugins/converters/qwen-bailian.ts')
    expect(importsOf('plugins/converters/text-trace.ts')).toContain('src/index.ts')
  })

  it.each(sources('src/commands'))('%s imports no plugin', (file) => {
    expect(importsOf(file).filter((p) => p.startsWith('plugins/'))).toEqual([])
  })

  it.each(sources('plugins').filter((f) => !MOVING_TO_CORE.has(f)))(
    '%s imports of lmt only its public entries',
    (file) => {
      const inside = importsOf(file).filter((p) => p.startsWith('src/') && !PUBLIC_ENTRIES.has(p))
      expect(inside).toEqual([])
    },
  )
})
