// V8's optimising compiler is off inside the window and on again after it, also when windows overlap or the work
// throws. Checked in a child process, where V8's test functions (natives syntax) can ask a function's tier.
import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const MODULE = fileURLToPath(new URL('../../dist/src/util/optimizing-compiler.js', import.meta.url))

const program = `
  const {withoutOptimizingCompiler} = await import(${JSON.stringify(MODULE)})
  // (semicolons: a line may not start with % after an expression) whether V8 compiles a fresh function with TurboFan when told to (status bit 4: optimised)
  const optimizes = () => {
    const f = new Function('x', 'return x * 2 + 1');
    %PrepareFunctionForOptimization(f);
    f(1);
    f(2);
    %OptimizeFunctionOnNextCall(f);
    f(3);
    return (%GetOptimizationStatus(f) & 16) !== 0
  }
  const seen = {before: optimizes()}
  let release
  const outer = withoutOptimizingCompiler(async () => {
    seen.inOuter = optimizes()
    await new Promise((resolve) => (release = resolve))
  })
  await withoutOptimizingCompiler(async () => (seen.inInner = optimizes()))
  seen.afterInnerWhileOuterRuns = optimizes()
  release()
  await outer
  seen.after = optimizes()
  await withoutOptimizingCompiler(async () => { throw new Error('failed work') }).catch((e) => (seen.thrown = e.message))
  seen.afterThrow = optimizes()
  process.stdout.write(JSON.stringify(seen))`

describe('withoutOptimizingCompiler', () => {
  it('turns TurboFan off for the work and on again when the last overlapping call ends', () => {
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--input-type=module', '-e', program],
      {
        encoding: 'utf8',
      },
    )
    expect(JSON.parse(out)).toEqual({
      before: true,
      inOuter: false,
      inInner: false,
      afterInnerWhileOuterRuns: false,
      after: true,
      thrown: 'failed work',
      afterThrow: true,
    })
  })
})
