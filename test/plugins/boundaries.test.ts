import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')

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

/** The bare specifiers of lmt a file imports: `lmt` and `lmt/<entry>`. */
function lmtSpecifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  return [...text.matchAll(/\b(?:from\s*|import\(\s*)['"](lmt(?:\/[^'"]*)?)['"]/g)].map((m) => m[1])
}

/** The folder of a built-in converter's own code: its folder under plugins/converters, or the file itself. */
function homeOf(file: string): string {
  const parts = file.split('/')
  return parts.length > 3 ? parts.slice(0, 3).join('/') + '/' : file
}

describe('plugin boundaries', () => {
  it('reads the imports it checks (a check that sees nothing proves nothing)', () => {
    expect(importsOf('src/cli/commands/convert.ts').length).toBeGreaterThan(0)
    expect(importsOf('plugins/converters/hash-id/mooncake.ts')).toContain(
      'plugins/converters/hash-id/qwen-bailian.ts',
    )
    expect(lmtSpecifiers('plugins/converters/text-trace/text-trace.ts')).toEqual(['lmt', 'lmt', 'lmt/flags'])
    expect(homeOf('plugins/converters/hash-id/_lib/rows.ts')).toBe('plugins/converters/hash-id/')
  })

  it.each(sources('src/cli/commands'))('%s imports no plugin', (file) => {
    expect(importsOf(file).filter((p) => p.startsWith('plugins/'))).toEqual([])
  })

  // a built-in converter is a plugin as a third party writes one: lmt by its name, its own code beside it
  it.each(sources('plugins'))(
    "%s imports lmt only as `lmt` or `lmt/flags`, and no other converter's code",
    (file) => {
      expect(importsOf(file).filter((p) => !p.startsWith(homeOf(file)))).toEqual([])
      expect(lmtSpecifiers(file).filter((s) => s !== 'lmt' && s !== 'lmt/flags')).toEqual([])
    },
  )
})
