// A missing optional argument read from standard input, as oclif reads it (`echo config.json | lmt simulate`):
// when stdin is not a terminal, its lines up to its end are the argument, if it ends within 10 ms. oclif starts
// that read at the parse and waits there for the end or the 10 ms, the whole 10 ms when stdin is a pipe that stays
// open and silent (a parent process that never closes it). lmt starts the read as the process starts instead
// (bin/run.js, for the commands that take such an argument), so the window has passed by the parse and the parse
// does not wait: the argument is what arrived and ended by then, or within 10 ms of the read's start.
import {EOL} from 'node:os'
import {createInterface} from 'node:readline'
import type {Readable} from 'node:stream'

/** how long stdin is given to end after the read starts (oclif's wait) */
export const STDIN_WINDOW_MS = 10
/** what is read at most: beyond it stdin is not an argument (a file path is far shorter) */
export const STDIN_MAX_CHARS = 1 << 16

export interface StdinProbe {
  /** the lines read, joined, once stdin ended within the window; undefined when it did not (or was too long) */
  argument(): Promise<string | undefined>
}

type Input = Readable & {isTTY?: boolean; unref?: () => void}

/**
 * Starts reading `input` now. The read never keeps the process alive (the stream is unreferenced when it can be),
 * and it is closed when {@link StdinProbe.argument} settles without an end.
 */
export function startStdinProbe(input: Input, now: () => number = () => performance.now()): StdinProbe {
  if (input.isTTY) return {argument: async () => undefined}
  const started = now()
  const lines: string[] = []
  let chars = 0
  let ended: string | undefined
  let windowOver = false // the window passed without an end: what closes afterwards is no argument
  let settle: ((v: string | undefined) => void) | undefined
  const rl = createInterface({input, terminal: false})
  input.unref?.()
  rl.on('line', (line) => {
    chars += line.length + EOL.length
    if (chars > STDIN_MAX_CHARS) return rl.close()
    lines.push(line)
  })
  rl.once('close', () => {
    if (!windowOver && chars <= STDIN_MAX_CHARS) ended = lines.join(EOL)
    settle?.(ended)
  })
  return {
    argument: () =>
      new Promise((resolve) => {
        if (ended !== undefined || windowOver) return resolve(ended)
        const left = started + STDIN_WINDOW_MS - now()
        if (left <= 0) {
          windowOver = true
          rl.close()
          return resolve(undefined)
        }
        const finish = (v: string | undefined): void => {
          clearTimeout(timer)
          settle = undefined
          resolve(v)
        }
        settle = finish
        // what is left of the window
        const timer = setTimeout(() => {
          windowOver = true
          finish(undefined)
          rl.close()
        }, left)
      }),
  }
}

let processProbe: StdinProbe | undefined

/** Starts reading the process's stdin for an argument (once; bin/run.js calls it first thing). */
export function probeProcessStdin(): StdinProbe {
  processProbe ??= startStdinProbe(process.stdin)
  return processProbe
}

/**
 * The argument standard input gives, as oclif would read it (trimmed; undefined when stdin gives none): from the
 * read started at the process's start, or from one started now (in-process runs, which have no such start).
 */
export async function stdinArgument(): Promise<string | undefined> {
  const raw = await probeProcessStdin().argument()
  return raw ? raw.trim() : undefined
}
