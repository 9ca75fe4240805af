import type {Interfaces} from '@oclif/core'
import {closest, lmtError} from '../errors.js'

/**
 * The command typed and the nearest command lmt has. `id` is oclif's: the words joined by `:`, possibly with the
 * arguments after the command (`trace:infoo:x.lct`): the command typed is the first word, or the first two after a
 * topic's name.
 */
export function nearestCommand(
  config: Interfaces.Config,
  id: string,
): {typed: string; topic?: string; near?: string} {
  const visible = config.commands.filter((c) => !c.hidden)
  const ids = [...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases)]
  const parts = id.split(':')
  const inTopic = parts.length > 1 && config.topics.some((t) => t.name === parts[0])
  const typed = parts.slice(0, inTopic ? 2 : 1).join(':')
  return {typed, topic: inTopic ? parts[0] : undefined, near: closest(typed, ids)}
}

/** The usage error of a command that does not exist (`lmt convrt` → did you mean "lmt convert"?). */
export function unknownCommandError(config: Interfaces.Config, id: string): Error {
  const {typed, topic, near} = nearestCommand(config, id)
  const spoken = (i: string) => `${config.bin} ${i.replace(/:/g, ' ')}`
  return lmtError('CLI_UNKNOWN_COMMAND', spoken(typed), near ? spoken(near) : undefined, {
    suggestions: [`run "${config.bin}${topic ? ` ${topic}` : ''} --help" for the list of commands`],
  })
}
