import {createInterface} from 'node:readline/promises'
import type {Hook} from '@oclif/core'
import {nearestCommand, unknownCommandError} from '../unknown-command.js'

/**
 * An unknown command: lmt's usage error with the nearest command (`error: "lmt convrt" is not an lmt command; did
 * you mean "lmt convert"?`), rendered like every other error. Someone at a terminal is first asked whether to run
 * the nearest command instead.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  const {typed, near} = nearestCommand(opts.config, opts.id)
  if (near && process.stdin.isTTY && process.stderr.isTTY) {
    const spoken = (id: string) => `${opts.config.bin} ${id.replace(/:/g, ' ')}`
    const rl = createInterface({input: process.stdin, output: process.stderr})
    const answer = await rl
      .question(
        `"${spoken(typed)}" is not an ${opts.config.bin} command. Run "${spoken(near)}" instead? [y/N] `,
      )
      .finally(() => rl.close())
    // the words after the command typed are its arguments
    const argv = opts.argv?.length ? opts.argv : opts.id.split(':').slice(typed.split(':').length)
    if (/^y(es)?$/i.test(answer.trim())) return opts.config.runCommand(near, argv)
  }
  throw unknownCommandError(opts.config, opts.id)
}

export default hook
