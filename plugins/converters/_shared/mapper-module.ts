// Where a built-in converter's line-mapper module lives, and how many threads map its lines.
import {availableParallelism} from 'node:os'
import {extname} from 'node:path'
import {fileURLToPath} from 'node:url'

/** URL of the module `name` beside this file, of the same kind (.js built, .ts in dev): a worker thread loads it. */
export function sharedModule(name: string): string {
  return new URL(`./${name}${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href
}

/** Worker threads for a line mapper: every core but the main thread's, 1 to 3. */
export function mapperThreads(): number {
  return Math.max(1, Math.min(availableParallelism() - 1, 3))
}
