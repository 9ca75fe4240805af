import {commands} from '@oclif/plugin-plugins'
import {allowScriptsFlag, installScriptsPolicy} from '../../install-scripts.js'

/** oclif's command (named through the package's export, so that its declaration can name the type) */
const Base: (typeof commands)['plugins:install'] = commands['plugins:install']

/** oclif's `plugins install` (npm into lmt's data directory), without install scripts unless asked (install-scripts.ts). */
export default class PluginsInstall extends Base {
  static override summary =
    "Install an lmt plugin (a folder, a tarball or an npm package) without running the package's install scripts"

  static override description = `Installs with npm into lmt's data directory (LMT_DATA_DIR overrides it). The package's install scripts (preinstall, install, postinstall; prepare of a folder) do not run — npm's --ignore-scripts for the package and its dependencies — unless you pass --allow-scripts: a script runs as you, before lmt has looked at the package, and an lmt plugin needs none.

Use the LMT_NPM_LOG_LEVEL environment variable to set npm's log level, LMT_NPM_REGISTRY its registry.`

  static override examples = [
    {
      command: '<%= config.bin %> <%= command.id %> file:<%= config.root %>/examples/lmt-plugin-example',
      description:
        'Install the example plugin that comes with lmt, from its folder (offline); a tarball made by npm pack (./lmt-plugin-mine-1.0.0.tgz) or a name on the npm registry installs the same way.',
    },
    {
      command:
        '<%= config.bin %> <%= command.id %> file:<%= config.root %>/examples/lmt-plugin-example --allow-scripts',
      description: "The same, running the package's install scripts (it has none).",
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
    const {flags} = await this.parse(PluginsInstall)
    this.argv = installScriptsPolicy(this.argv, flags['allow-scripts'])
    if (!flags['allow-scripts'])
      this.logToStderr("note: the package's install scripts are not run (--allow-scripts runs them)")
    return super.run()
  }
}
