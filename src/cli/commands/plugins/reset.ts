import {commands} from '@oclif/plugin-plugins'
import {allowScriptsFlag, installScriptsPolicy} from '../../install-scripts.js'

/** oclif's command (named through the package's export, so that its declaration can name the type) */
const Base: (typeof commands)['plugins:reset'] = commands['plugins:reset']

/** oclif's `plugins reset`; with --reinstall, without install scripts unless asked (install-scripts.ts). */
export default class PluginsReset extends Base {
  static override summary = 'Remove all installed and linked plugins (--reinstall: and install them again)'

  static override description = `With --reinstall the plugins are installed again with npm, and, as with plugins install, the install scripts of the plugins and their dependencies do not run — npm's --ignore-scripts — unless you pass --allow-scripts.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --reinstall',
  ]

  static override flags = {
    ...Base.flags,
    'allow-scripts': allowScriptsFlag,
  }

  override async run(): Promise<void> {
    const {flags} = await this.parse(PluginsReset)
    this.argv = installScriptsPolicy(this.argv, flags['allow-scripts'])
    if (flags.reinstall && !flags['allow-scripts'])
      this.logToStderr("note: the plugins' install scripts are not run (--allow-scripts runs them)")
    return super.run()
  }
}
