import {LmtCommand} from '../lmt-command.js'
import {reservedReplayFlagNames} from '../replay-flags.js'
import {discoverLevels} from '../../plugins/replay-levels.js'

/**
 * The `--json` document of `lmt levels`, which `lmt replay --list-levels --json` prints too: every level found, in
 * name order, and the warnings of their discovery (a plugin that could not be loaded).
 */
export function levelsListing(reg: Awaited<ReturnType<typeof discoverLevels>>, warnings: readonly string[]) {
  const levels = reg.list().map((r) => ({
    name: r.name,
    source: r.source,
    description: r.level.description,
    replayableSchemaVersions: [...r.level.replayableSchemaVersions],
    flags: Object.keys(r.level.flags).map((f) => `--${f}`),
  }))
  return {levels, warnings: [...warnings]}
}

export default class Levels extends LmtCommand {
  static override summary = 'List the replay levels lmt replay knows, and where each comes from'

  static override description = `A trace's header names its level ("storage", "events", …); lmt replay needs a level of that name. "storage" is built in; installed lmt plugins add others (see "lmt plugins").`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  static override enableJsonFlag = true

  async run() {
    await this.parse(Levels)
    const warnings: string[] = []
    const warn = (m: string) => {
      warnings.push(m)
      process.stderr.write(`warning: ${m}\n`)
    }
    const reg = await discoverLevels(this.config, warn, reservedReplayFlagNames())
    const listing = levelsListing(reg, warnings)
    const {levels} = listing
    if (!this.jsonEnabled()) {
      const w = Math.max(5, ...levels.map((l) => l.name.length))
      const s = Math.max(6, ...levels.map((l) => l.source.length))
      this.log(`${'LEVEL'.padEnd(w)}  ${'SOURCE'.padEnd(s)}  DESCRIPTION`)
      for (const l of levels) this.log(`${l.name.padEnd(w)}  ${l.source.padEnd(s)}  ${l.description}`)
    }
    return listing
  }
}
