import {existsSync, realpathSync} from 'node:fs'
import {isAbsolute, relative, resolve, sep} from 'node:path'

// The paths of a plugin's "lmt" manifest are relative to its package; lmt imports what they point at, so a path
// (or a symbolic link on it) that leads outside the package could make lmt run code the plugin does not ship.

function realOrResolved(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** Whether `path` (symbolic links resolved) lies in `root` (itself resolved) or is it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(realOrResolved(root), realOrResolved(path))
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`))
}

/**
 * `rel` (a manifest field) resolved against the plugin's root; undefined, with a warning naming the plugin, when it
 * leads outside the package.
 */
export function manifestPath(
  plugin: {name: string; root: string},
  field: string,
  rel: string,
  warn: (message: string) => void,
): string | undefined {
  const path = resolve(plugin.root, rel)
  if (isInside(plugin.root, path)) return path
  const real = existsSync(path) ? ` (${realOrResolved(path)})` : ''
  warn(
    `plugin ${plugin.name}: "lmt.${field}" in package.json points outside the plugin's package${real}; ignored`,
  )
  return undefined
}

/** The files of `files` inside the plugin's root; each one outside (through a symbolic link) is a warning. */
export function filesInside(
  plugin: {name: string; root: string},
  files: readonly string[],
  warn: (message: string) => void,
): string[] {
  return files.filter((file) => {
    if (isInside(plugin.root, file)) return true
    warn(
      `plugin ${plugin.name}: ${file} leads outside the plugin's package (${realOrResolved(file)}); not loaded`,
    )
    return false
  })
}
