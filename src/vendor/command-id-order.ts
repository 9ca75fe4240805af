// oclif's Plugin.load sorts each plugin's commands by `a.id.localeCompare(b.id)`. The first localeCompare of a process
// builds ICU's collator with its table of available locales: ~70 M instructions, about a seventh of a whole short run
// (docs/performance-notes.md, "Start-up"). scripts/bundle-oclif.mjs puts this function in its place in the bundle.

/** ids of these characters are compared without ICU (see {@link compareCommandIds}) */
const PLAIN_ID = /^[a-z0-9:-]*$/

/**
 * The sign `a.localeCompare(b)` has, for command ids. For ids of lower-case ASCII letters, digits, `-` and `:`
 * (every id oclif and lmt make) ICU's root collation compares primary weights only, in the order `-` < `:` < digits
 * < letters, a shorter id before a longer one it begins: the order of the code units once `:` is moved between `-`
 * and `0` (to `/`). Any other id is left to localeCompare itself.
 */
export function compareCommandIds(a: string, b: string): number {
  if (!PLAIN_ID.test(a) || !PLAIN_ID.test(b)) return a.localeCompare(b)
  const x = a.replaceAll(':', '/')
  const y = b.replaceAll(':', '/')
  return x < y ? -1 : x > y ? 1 : 0
}

/** {@link compareCommandIds} of two commands' ids: what Plugin.load sorts by. */
export function byCommandId(a: {id: string}, b: {id: string}): number {
  return compareCommandIds(a.id, b.id)
}
