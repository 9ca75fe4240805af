import type {Hook} from '@oclif/core'
import {lmtError} from '../errors.js'
import {closest} from '../util/closest.js'

/**
 * An unknown command: a usage error in lmt's style (`error: … did you mean "lmt convert"?`), rendered by the
 * top-level handler like every other error, whether or not a terminal could answer a prompt.
 */
const hook: Hook.CommandNotFound = async function (opts) {
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
    'USAGE',
    `"${typed}" is not an lmt command${near ? `; did you mean "${opts.config.bin} ${near.replace(/:/g, ' ')}"?` : ''}`,
    {suggestions: [`run "${opts.config.bin}${topic} --help" for the list of commands`]},
  )
}

export default hook
