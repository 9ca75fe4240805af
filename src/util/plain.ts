// LMT_PLAIN=1 runs every command on its plain paths: each accelerator that has a plain twin is left out (the
// simulate row scanner and sweep threads; the .lct count-only scan and interning; a conversion's byte lane and
// worker threads, the hash-id byte scanner, text_trace's native tokenizer). The outputs are the same byte for byte (a test
// holds it on the golden fixtures); the switch is there to compare the two and to rule a lane out.

/** Whether this process runs on the plain paths (`LMT_PLAIN=1`). */
export function plainPaths(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LMT_PLAIN === '1'
}
