// lmt's side of its plugin thread (plugin-worker.ts): third-party plugin code runs there, never here. Whatever it does —
// throws from a timer, leaves a rejection unhandled, calls process.exit, awaits what never comes, loops forever,
// replaces Promise.prototype.then — ends at most that thread: each pending request fails with a coded error naming
// the plugin, and the next request starts a fresh thread. lmt's thread stays free to answer Ctrl-C, which ends the
// plugin thread at once (terminate()).
import {MessageChannel, type MessagePort, receiveMessageOnPort, Worker} from 'node:worker_threads'
import {type LmtError, lmtError} from '../errors.js'
import {reviveWorkerError, type WorkerErrorData} from '../util/workers/worker-errors.js'
import {NEXT_STEP} from './plugin-wire.js'

/** How long a plugin may take to load (import and hooks), in seconds, unless LMT_PLUGIN_LOAD_TIMEOUT says more. */
export const DEFAULT_LOAD_TIMEOUT_S = 3

/** The load bound in milliseconds: LMT_PLUGIN_LOAD_TIMEOUT (seconds, > 0) or {@link DEFAULT_LOAD_TIMEOUT_S}. */
export function pluginLoadTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.LMT_PLUGIN_LOAD_TIMEOUT)
  return (Number.isFinite(s) && s > 0 ? s : DEFAULT_LOAD_TIMEOUT_S) * 1000
}

/** What the plugin thread posts: the answer to request `id` (or an event of it); id 0 says it has started. */
interface Reply {
  id: number
  ok?: boolean
  value?: unknown
  error?: WorkerErrorData
  event?: string
}

type Events = Record<string, (value: never) => void>

interface Pending {
  who: string
  resolve(value: unknown): void
  reject(err: unknown): void
  events?: Events
  timer?: NodeJS.Timeout
}

class PluginThread {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private readonly state = new Int32Array(new SharedArrayBuffer(4))
  private readonly syncReplies: MessagePort
  private nextId = 1
  private crash: unknown
  /** set once the thread has loaded lmt's own modules: a plugin's time bound starts then */
  private started = false
  private readonly waitingToStart: Array<() => void> = []
  /** why lmt ended the thread itself, when it did */
  private ended: ((who: string) => LmtError) | undefined
  dead = false

  constructor() {
    const {port1, port2} = new MessageChannel()
    this.syncReplies = port1
    port1.unref()
    this.worker = new Worker(new URL('./plugin-worker.js', import.meta.url), {
      workerData: {state: this.state.buffer, syncPort: port2},
      transferList: [port2],
    })
    this.worker.unref()
    this.worker.on('message', (m: Reply) => this.onMessage(m))
    this.worker.on('error', (err) => {
      this.crash ??= err
    })
    this.worker.on('exit', (code) => this.onExit(code))
  }

  private onMessage(m: Reply): void {
    if (m.id === 0) {
      this.started = true
      for (const arm of this.waitingToStart.splice(0)) arm()
      return
    }
    const p = this.pending.get(m.id)
    if (!p) return
    if (m.event !== undefined) return p.events?.[m.event]?.(m.value as never)
    this.settle(m.id)
    if (m.ok) p.resolve(m.value)
    else p.reject(reviveWorkerError(m.error as WorkerErrorData))
  }

  private settle(id: number): void {
    const p = this.pending.get(id)
    clearTimeout(p?.timer)
    this.pending.delete(id)
    if (this.pending.size === 0) this.worker.unref()
  }

  /** Why the thread ended, as the coded error of a request of `who`. */
  private deathOf(code: number, who: string): LmtError {
    if (this.ended) return this.ended(who)
    if (this.crash !== undefined) {
      const reason = (this.crash as Error)?.message ?? String(this.crash)
      return lmtError('PLUGIN_CRASHED', who, reason, {suggestions: [NEXT_STEP]})
    }
    if (Atomics.load(this.state, 0) === 1)
      return lmtError('PLUGIN_NEVER_SETTLED', who, {suggestions: [NEXT_STEP]})
    return lmtError('PLUGIN_EXIT', who, code, {suggestions: [NEXT_STEP]})
  }

  private onExit(code: number): void {
    this.dead = true
    if (current === this) current = undefined
    for (const [id, p] of [...this.pending]) {
      this.settle(id)
      p.reject(this.deathOf(code, p.who))
    }
  }

  /** Asks the thread; `who` names the plugin code in errors; `timeoutMs` ends the thread when it does not answer. */
  call<T>(op: string, args: unknown, who: string, o: {events?: Events; timeoutMs?: number} = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++
      const p: Pending = {who, resolve: resolve as (v: unknown) => void, reject, events: o.events}
      this.pending.set(id, p)
      this.worker.ref()
      if (o.timeoutMs !== undefined) {
        const ms = o.timeoutMs
        const arm = (): void => {
          if (!this.pending.has(id)) return
          p.timer = setTimeout(
            () =>
              this.end((w) =>
                lmtError('PLUGIN_TIMEOUT', w, ms / 1000, {
                  suggestions: ['LMT_PLUGIN_LOAD_TIMEOUT=<seconds> allows more', NEXT_STEP],
                }),
              ),
            ms,
          )
        }
        if (this.started) arm()
        else this.waitingToStart.push(arm)
      }
      this.worker.postMessage({id, op, args})
    })
  }

  /**
   * Asks the thread and waits for the answer, blocking (for the synchronous parts of a plugin's contract); a thread
   * that does not answer within `timeoutMs` is ended and the call throws.
   */
  callSync<T>(op: string, args: unknown, who: string, timeoutMs: number): T {
    const flag = new Int32Array(new SharedArrayBuffer(4))
    const id = this.nextId++
    this.worker.postMessage({id, op, args, sync: flag})
    if (Atomics.wait(flag, 0, 0, timeoutMs) === 'timed-out') {
      this.end((w) => lmtError('PLUGIN_TIMEOUT', w, timeoutMs / 1000, {suggestions: [NEXT_STEP]}))
      throw lmtError('PLUGIN_TIMEOUT', who, timeoutMs / 1000, {suggestions: [NEXT_STEP]})
    }
    const m = receiveMessageOnPort(this.syncReplies)?.message as Reply | undefined
    if (!m?.ok) throw reviveWorkerError(m?.error ?? {name: 'Error', message: 'no answer'})
    return m.value as T
  }

  /** Ends the thread now; its pending requests fail with `why`. */
  end(why: (who: string) => LmtError): void {
    this.ended ??= why
    this.dead = true
    if (current === this) current = undefined
    void this.worker.terminate()
  }
}

let current: PluginThread | undefined

/**
 * Whether third-party code can run on the plugin thread: in a build. From sources (lmt's unit tests) there is no
 * compiled worker to start, and plugin modules load on lmt's thread.
 */
export const pluginThreadAvailable = import.meta.url.endsWith('.js')

/** The plugin thread, started on first use (and again after one ended). */
export function pluginThread(): PluginThread {
  if (!current || current.dead) current = new PluginThread()
  return current
}

/** Ends the plugin thread, if one runs (Ctrl-C: safe to call from a signal handler). */
export function endPluginThread(signal = 'a signal'): void {
  current?.end(() => lmtError('CLI_INTERRUPTED', signal))
}
