// What a simulate run left in its output directory, with what varies between runs masked (timings, the
// directory's own path), for tests that compare two ways of doing one run.
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

/** Every file of `out` by name; summary.json with its timings and `out` itself masked. */
export function outputFiles(out: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const f of readdirSync(out).sort()) {
    let text = readFileSync(join(out, f), 'utf8')
    if (f === 'summary.json')
      text = text
        .replace(/"(\w+_seconds|\w+_per_second|peak_rss_bytes)": [\d.e+-]+/g, '"$1": 0')
        .replaceAll(out, 'OUT')
    files[f] = text
  }
  return files
}

/** The console lines of a run, its lookups/s masked. */
export function maskedLines(lines: readonly string[]): string[] {
  return lines.map((l) => l.replace(/[\d.]+ M? ?lookups\/s/g, 'N'))
}
