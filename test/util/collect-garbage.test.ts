import {setImmediate as tick} from 'node:timers/promises'
import {describe, expect, it} from 'vitest'
import {collectGarbage} from '../../src/util/collect-garbage.js'

describe('collectGarbage', () => {
  it('collects what nothing references, without exposing gc', async () => {
    let buffer: ArrayBuffer | undefined = new ArrayBuffer(1 << 20)
    const ref = new WeakRef(buffer)
    buffer = undefined
    await tick() // a WeakRef target lives at least to the end of the job that made it
    collectGarbage()
    expect(ref.deref()).toBeUndefined()
    expect((globalThis as {gc?: unknown}).gc).toBeUndefined()
    collectGarbage() // again: the function taken once is reused
  })
})
