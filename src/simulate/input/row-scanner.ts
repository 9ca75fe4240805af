// The row scanner an accelerator may put in (through seams.ts): trace-source.ts reads a line through it and leaves
// the lines it declines to the plain parser (trace-rows.ts); without one, or with LMT_PLAIN=1, every line goes there.
import {plainPaths} from '../../util/plain.js'
import type {KeyInterner} from './key-interner.js'
import type {TraceRow} from './trace-rows.js'

/** Reads a trace row from a line's UTF-8 bytes; undefined leaves the line to the plain parser (trace-rows.ts). */
export interface RowScanner {
  /** keep `ttl_us` (the rows of a tiered configuration) */
  keepTtl: boolean
  /** `keys` undefined: keys are checked, not interned (each key id 0) */
  scan(
    bytes: Uint8Array,
    start: number,
    end: number,
    lineNo: number,
    keys: KeyInterner | undefined,
  ): TraceRow | undefined
}

let makeScanner: (() => RowScanner) | undefined

/** Puts a row scanner in (seams.ts), or takes it out (undefined). */
export function useRowScanner(make: (() => RowScanner) | undefined): void {
  makeScanner = make
}

/** A row scanner for one read, if one is in and the plain paths are not asked for. */
export function rowScanner(): RowScanner | undefined {
  return plainPaths() ? undefined : makeScanner?.()
}
