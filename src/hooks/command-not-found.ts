import type {Hook} from '@oclif/core'
import {lmtError} from '../errors.js'
import {closest} from '../util/closest.js'

/**
 * An unknown command. Someone at a terminal gets oclif's own not-found plugin: it asks "Did you mean …?" and runs
 * the command on yes. Elsewhere (scripts, pipes, CI) that plugin suggests nothing, so lmt's usage error says the
 * nearest command (`error: … did you mean "lmt convert"?`), rendered like every other error.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const {default: prompt} = await import('@oclif/plugin-not-found')
    return prompt.call(this, opts)
  }
  const visible = opts.config.commands.filter((c) => !c.hidden)
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)]
  // oclif joins the arguments to the id (`trace infoo x.lct` → trace:infoo:x.lct): the command typed is the first
  // word, or the first two after a topic's name
  const parts = opts.id.split(':')
  const inTopic = parts.length > 1 && opts.config.topics.some((t) => t.name === parts[0])
  const id = parts.slice(0, inTopic ? 2 : 1).join(':')
  const near = closest(id, ids)
  const typed = `${opts.config.bin} ${id.replace(/:/g, ' ')}`
  const topic = inTopic ? ` ${parts[0]}` : ''
  throw lmtError(
    'CLI_UNKNOWN_COMMAND',
    typed,
    near ? `${opts.config.bin} ${near.replace(/:/g, ' ')}` : undefined,
    {suggestions: [`run "${opts.config.bin}${topic} --help" for the list of commands`]},
  )
}

export default hook
