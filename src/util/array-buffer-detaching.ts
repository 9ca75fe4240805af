// V8 compiles typed-array code on the assumption that no ArrayBuffer of the thread was ever detached, and throws
// all such code away at once the first time one is (a buffer transferred to or from a worker thread). lmt
// transfers buffers in the middle of its hot loops (line-mapper batches and results, record tapes), so that
// storm of deoptimisations landed in the middle of a run (docs/performance-notes.md, V8 pitfalls). Detaching a
// throwaway buffer before any hot code is compiled settles the assumption up front; the code compiled afterwards
// carries its detach checks from the start and is never thrown away for this reason. Only threads that will detach
// buffers call it: on the others typed-array code keeps the cheaper form without the checks.

let settled = false

/** Detaches one throwaway ArrayBuffer on this thread, once (idempotent and cheap). */
export function settleArrayBufferDetaching(): void {
  if (settled) return
  settled = true
  const scratch = new ArrayBuffer(8)
  structuredClone(scratch, {transfer: [scratch]})
}
