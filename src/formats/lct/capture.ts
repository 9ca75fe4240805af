/**
 * The capture side's gate and wrapper (docs/lct.md §6.1–6.4): a traced method costs one boolean check while tracing is
 * off; when on, its arguments are captured by declared parameter name (defaults filled) and published before the
 * call (entry-only).
 */

/** What a recorder must offer to receive published calls. */
export interface CallSink {
  onCall(qualname: string, args: Record<string, unknown>): void
}

let enabled = false
let active: CallSink | undefined

export function isTracingEnabled(): boolean {
  return enabled
}

export function setTracingEnabled(on: boolean): void {
  enabled = on
}

/** @internal used by the recorder */
export function setActiveRecorder(sink: CallSink | undefined): void {
  if (sink !== undefined && active !== undefined && active !== sink)
    throw new Error('another capturing trace recorder is already active')
  active = sink
}

/** Hands a call to the active recorder; never throws into the caller. */
export function publishCallEvent(qualname: string, args: Record<string, unknown>): void {
  if (!enabled || active === undefined) return
  try {
    active.onCall(qualname, args)
  } catch {
    // a failing record is the recorder's business (it counts drops); the traced code must not notice
  }
}

export type ParamSpec = string | {name: string; default?: unknown}

export interface TracedSpec {
  /** full qualname; default `${prefix}.${method ?? <JS method name>}` */
  qualname?: string
  /** LMCache's method name, e.g. 'reserve_write' for JS 'reserveWrite' */
  method?: string
  /** LMCache's snake_case parameter names in signature order, with defaults */
  params: readonly ParamSpec[]
  /** whitelist applied after defaults */
  capture?: readonly string[]
  /** names removed after capture */
  redact?: readonly string[]
}

interface NormalParam {
  name: string
  hasDefault: boolean
  default: unknown
}

function normalise(params: readonly ParamSpec[]): NormalParam[] {
  return params.map((p) =>
    typeof p === 'string'
      ? {name: p, hasDefault: false, default: undefined}
      : {name: p.name, hasDefault: 'default' in p, default: p.default},
  )
}

/** Arguments by parameter name, in parameter order, defaults filled, absent ones omitted. */
export function captureArgs(
  params: readonly NormalParam[],
  args: ArrayLike<unknown>,
  spec: TracedSpec,
): Record<string, unknown> {
  let captured = Object.create(null) as Record<string, unknown>
  for (let i = 0; i < params.length; i++) {
    const p = params[i]
    const v = i < args.length ? args[i] : undefined
    if (v !== undefined) captured[p.name] = v
    else if (p.hasDefault) captured[p.name] = p.default
  }
  if (spec.capture) {
    const keep = new Set(spec.capture)
    const out = Object.create(null) as Record<string, unknown>
    for (const k of Object.keys(captured)) if (keep.has(k)) out[k] = captured[k]
    captured = out
  }
  for (const k of spec.redact ?? []) delete captured[k]
  return captured
}

type AnyFn = (...args: never[]) => unknown

/** Wraps `fn` so that calls are published under `spec.qualname` while tracing is on. */
export function traced<F extends AnyFn>(spec: TracedSpec & {qualname: string}, fn: F): F
/** A TC39 standard method decorator (for code compiled by tsc; lmt's own code uses installTracing). */
export function traced(spec: TracedSpec & {qualname: string}): (fn: AnyFn, context: unknown) => AnyFn
export function traced(
  spec: TracedSpec & {qualname: string},
  fn?: AnyFn,
): AnyFn | ((fn: AnyFn, context: unknown) => AnyFn) {
  if (fn === undefined) return (method: AnyFn) => traced(spec, method)
  const params = normalise(spec.params)
  const qualname = spec.qualname
  const wrapper = function (this: unknown, ...args: unknown[]): unknown {
    if (!enabled) return (fn as (...a: unknown[]) => unknown).apply(this, args)
    publishCallEvent(qualname, captureArgs(params, args, spec))
    return (fn as (...a: unknown[]) => unknown).apply(this, args)
  }
  Object.defineProperty(wrapper, 'name', {value: fn.name})
  Object.defineProperty(wrapper, 'traceQualname', {value: qualname, enumerable: false})
  Object.defineProperty(wrapper, 'traceParams', {value: spec.params, enumerable: false})
  return wrapper
}

/** Replaces `proto[method]` by a traced wrapper for every entry (`qualname = prefix.method`). */
export function installTracing(proto: object, prefix: string, methods: Record<string, TracedSpec>): void {
  const target = proto as Record<string, unknown>
  for (const [jsName, spec] of Object.entries(methods)) {
    const fn = target[jsName]
    if (typeof fn !== 'function') throw new Error(`installTracing: ${jsName} is not a method`)
    const qualname = spec.qualname ?? `${prefix}.${spec.method ?? jsName}`
    target[jsName] = traced({...spec, qualname}, fn as AnyFn)
  }
}
