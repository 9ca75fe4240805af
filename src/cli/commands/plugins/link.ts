import {existsSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {commands} from '@oclif/plugin-plugins'
import {lmtError} from '../../../errors.js'
import {allowScriptsFlag, installScriptsPolicy} from '../../install-scripts.js'

/** oclif's command (named through the package's export, so that its declaration can name the type) */
const Base: (typeof commands)['plugins:link'] = commands['plugins:link']

/** oclif's `plugins link`, refusing a folder that is no npm package with lmt's error instead of oclif's internals. */
export default class PluginsLink extends Base {
  static override summary =
    'Link a plugin folder into lmt (for its development: lmt uses the folder as it is)'

  static override description = `The folder is an npm package (a package.json with "oclif": {} and an "lmt" field naming its converters and levels folders). With a package-lock.json, npm installs its dependencies first (--no-install skips that), running no install script of the folder or its dependencies unless you pass --allow-scripts; without one, oclif warns that you may need to install them yourself: an empty package-lock.json ({}) says there is nothing to install.`

  // oclif's parse reads a command's own static properties: the inherited ones are restated
  static override args = Base.args
  static override flags = {
    ...Base.flags,
    'allow-scripts': allowScriptsFlag,
  }

  static override examples = [
    '<%= config.bin %> <%= command.id %> <%= config.root %>/examples/lmt-plugin-example',
    '<%= config.bin %> <%= command.id %> <%= config.root %>/examples/lmt-plugin-example --no-install',
  ]

  override async run(): Promise<void> {
    const {args, flags} = await this.parse(PluginsLink)
    const dir = resolve(args.path)
    if (!existsSync(join(dir, 'package.json')))
      throw lmtError('PLUGIN_NOT_A_PACKAGE', dir, {
        suggestions: ['a plugin is a folder with a package.json: see "A plugin package" in lmt\'s README'],
      })
    this.argv = installScriptsPolicy(this.argv, flags['allow-scripts'])
    return super.run()
  }
}
