// Trace lines a built-in converter encoded ahead (on its row decoders' threads), handed to the framework in runs,
// with no record object per trace. Opt-in on both sides: the framework asks a traces result for them through
// {@link encodedTraceSource}; any other consumer of the result iterates it and gets records as always.

/**
 * A run of encoded trace lines of one instance: line i is `bytes[i === 0 ? start : ends[i − 1], ends[i])`, newline
 * included, with its timestamp and type. The bytes are what `serializeJson(record) + "\n"` gives for the record the
 * converter would have made (its tests pin that); they are not parsed again.
 */
export class EncodedTraces {
  constructor(
    readonly bytes: Buffer,
    readonly start: number,
    readonly ends: Int32Array,
    readonly timestamps: readonly bigint[],
    /** per line: 0 = get, 1 = write */
    readonly kinds: Uint8Array,
    readonly instanceId: string,
    /**
     * When set, `bytes` may be reused once this run's lines are written: called then (the run's lines and those of
     * runs in the same bytes handed over before it must ascend in time, so that this run's last line is written
     * last).
     */
    readonly release?: () => void,
  ) {}

  get count(): number {
    return this.timestamps.length
  }
}

/**
 * Traces handed over together through {@link encodedTraceSource}, taken as if each had come on its own, in order:
 * a converter that pairs a whole batch of events at once saves an async turn per trace (several promises each
 * through nested async generators).
 */
export class TraceBatch {
  constructor(readonly traces: readonly unknown[]) {}
}

/**
 * The key of a traces result's optional method that gives the same traces as iterating it, with runs of
 * {@link EncodedTraces} in place of records where it has them, and {@link TraceBatch}es of traces: `result[encodedTraceSource]()` → an async iterable
 * of traces and runs, in the same order.
 */
export const encodedTraceSource: unique symbol = Symbol('lmt.encodedTraceSource')

/** A traces result that offers encoded runs. */
export interface EncodedTraceSource {
  [encodedTraceSource](): AsyncIterable<unknown>
}

/** Whether a converter's traces result offers encoded runs. */
export function offersEncodedTraces(result: unknown): result is EncodedTraceSource {
  return (
    result !== null &&
    typeof result === 'object' &&
    typeof (result as Partial<EncodedTraceSource>)[encodedTraceSource] === 'function'
  )
}
