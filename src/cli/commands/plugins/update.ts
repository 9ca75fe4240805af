import {commands} from '@oclif/plugin-plugins'
import {allowScriptsFlag, installScriptsPolicy} from '../../install-scripts.js'

/** oclif's command (named through the package's export, so that its declaration can name the type) */
const Base: (typeof commands)['plugins:update'] = commands['plugins:update']

/** oclif's `plugins update` (npm in lmt's data directory), without install scripts unless asked (install-scripts.ts). */
export default class PluginsUpdate extends Base {
  static override summary = "Update the installed lmt plugins without running the packages' install scripts"

  static override description = `Updates every installed plugin (not the linked ones) with npm in lmt's data directory (LMT_DATA_DIR overrides it). As with plugins install, the install scripts of the plugins and their dependencies (preinstall, install, postinstall) do not run — npm's --ignore-scripts — unless you pass --allow-scripts: a script runs as you, before lmt has looked at the package, and an lmt plugin needs none.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    {
      command: '<%= config.bin %> <%= command.id %> --allow-scripts',
      description: "The same, running the packages' install scripts.",
    },
  ]

  // oclif's parse reads a command's own static properties: the inherited ones are restated
  static override args = Base.args
  static override strict = Base.strict
  static override aliases = Base.aliases
  static override enableJsonFlag = Base.enableJsonFlag

  static override flags = {
    ...Base.flags,
    'allow-scripts': allowScriptsFlag,
  }

  override async run(): Promise<void> {
    const {flags} = await this.parse(PluginsUpdate)
    this.argv = installScriptsPolicy(this.argv, flags['allow-scripts'])
    if (!flags['allow-scripts'])
      this.logToStderr("note: the plugins' install scripts are not run (--allow-scripts runs them)")
    return super.run()
  }
}
