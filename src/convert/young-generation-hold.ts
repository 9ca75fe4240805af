// The main thread's young generation while a converter pairs events across batches (publisher_log). V8 doubles it,
// up to 16 MB a semi-space, whenever most of what a scavenge finds survives, as a converter's pending events and
// sort window do: at 200k publisher lines it grew from 8 to 32 MB, resident memory that bought fewer scavenges but
// no less work. `--semi-space-growth-factor=1` stops the growth (V8 reads it at every growth); starting a worker
// thread resets V8's flags, so a converter holds the size once its workers run. The conversion run lets go when it
// ends (after its final merge, which would grow it again).
import {setFlagsFromString} from 'node:v8'

/** V8's own growth factor (restored at the end: commands that want another set it before any worker starts). */
const V8_GROWTH_FACTOR = 2

let held = false

/** Keeps the young generation at its present size until {@link releaseYoungGeneration}. */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  held = true
}

/** Lets the young generation grow again if it was held (the end of a conversion run). */
export function releaseYoungGeneration(): void {
  if (held) setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`)
  held = false
}
