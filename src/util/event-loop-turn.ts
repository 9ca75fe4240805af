// A turn of the event loop between long synchronous steps: signals (Ctrl-C), workers' messages and timers are
// handled there, so a command made of several such steps still answers Ctrl-C within a second.

/** Resolves after the event loop has run its pending callbacks once (a macrotask: setImmediate, not a microtask). */
export function eventLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
