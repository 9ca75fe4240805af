import {converterSourceFlags} from '../converter-source-flags.js'
import {LmtCommand} from '../lmt-command.js'
import {discoverConverters} from '../../plugins/converter-discovery.js'

export default class Converters extends LmtCommand {
  static override summary = 'List the input formats lmt convert knows, and where each converter comes from'

  static override description = `Runs the same discovery as "lmt convert": built-in converters, then each --converter-dir and --converter-module, then installed lmt plugins. A later registration of a format replaces an earlier one (with a warning); --json shows what each one shadowed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --converter-dir <%= config.root %>/examples/lmt-plugin-example/converters',
    '<%= config.bin %> <%= command.id %> --converter-module <%= config.root %>/examples/lmt-plugin-example/converters/lookup-hash-log.js --json',
  ]

  static override enableJsonFlag = true

  static override flags = converterSourceFlags()

  async run() {
    const {flags} = await this.parse(Converters)
    const warnings: string[] = []
    const registry = await discoverConverters({
      config: this.config,
      dirs: flags['converter-dir'],
      modules: flags['converter-module'],
      onWarning: (m) => {
        warnings.push(m)
        process.stderr.write(`warning: ${m}\n`)
      },
    })
    // a registration as it is, less its class (path only when it has one)
    const formats = registry.list().map(({cls: _cls, ...f}) => f)
    if (!this.jsonEnabled()) {
      const head = ['FORMAT', 'CLASS', 'SOURCE', 'ALIASES', 'DESCRIPTION']
      const rows = formats.map((f) => [f.format, f.className, f.source, f.aliases.join(', '), f.description])
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
      const fmt = (r: string[]): string =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
          .join('  ')
          .trimEnd()
      this.log(fmt(head))
      for (const r of rows) this.log(fmt(r))
    }
    return {formats, warnings}
  }
}
