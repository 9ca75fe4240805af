// The plugin commands that run npm (`plugins install`, `plugins update`, `plugins reset --reinstall`) run no install
// script of a package unless the user asks (--allow-scripts): npm runs `preinstall`, `install`, `postinstall` (and
// `prepare` of a folder) as the user, before lmt has looked at the package, and an lmt plugin needs none of them (its
// manifest names plain module files).
import {Flags} from '@oclif/core'

export const allowScriptsFlag = Flags.boolean({
  summary: "Run the install scripts of the packages and their dependencies (npm's default; lmt's is not to).",
})

/**
 * Keeps the npm that oclif's command starts from running install scripts unless `allow`; returns `argv` without
 * `--allow-scripts` (oclif's command parses argv again and has no such flag).
 */
export function installScriptsPolicy(argv: readonly string[], allow: boolean): string[] {
  // npm reads its configuration from npm_config_* variables; the npm that oclif starts inherits this one
  if (!allow) process.env.npm_config_ignore_scripts = 'true'
  return argv.filter((arg) => arg !== '--allow-scripts')
}
