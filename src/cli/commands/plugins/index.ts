import {commands} from '@oclif/plugin-plugins'
import {installedPlugins} from '../../../plugins/discovery.js'

/** oclif's command (named through the package's export, so that its declaration can name the type) */
const Base: (typeof commands)['plugins'] = commands['plugins']

/** oclif's `plugins`, whose `--json` is the list of installed plugins (not oclif's whole plugin objects). */
export default class PluginsIndex extends Base {
  static override summary = 'List the installed lmt plugins'

  static override description = `Plugins installed with "lmt plugins install" or linked with "lmt plugins link", each with its version (and its folder when linked). --json prints them as a list of {name, version, type, root}: [] when none is installed.`

  // oclif's parse reads a command's own static properties: the inherited ones are restated
  static override flags = Base.flags
  static override enableJsonFlag = Base.enableJsonFlag

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  override async run() {
    if (!this.jsonEnabled()) {
      await super.run()
      return []
    }
    const {flags} = await this.parse(PluginsIndex)
    const plugins = flags.core
      ? this.config.getPluginsList().filter((p) => p.name !== this.config.name)
      : installedPlugins(this.config)
    // type: `user` (installed) or `link`
    return plugins.map((p) => ({name: p.name, version: p.version, type: p.type, root: p.root}))
  }
}
