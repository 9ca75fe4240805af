// convert's plain model never imports its accelerators (src/convert/fast/): only the doors that run conversions load
// them, and they reach the model through the one seam (src/convert/seams.ts).
import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const DOORS = [
  'src/cli/commands/convert.ts',
  'src/simulate/input/convert-input.ts',
  'src/plugins/plugin-worker.ts',
]

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), {withFileTypes: true, recursive: true})
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
}

/** Whether a file imports anything under convert/fast/ (by a relative path from wherever it is). */
const importsFast = (file: string): boolean =>
  /from\s+['"][./]*(?:convert\/)?fast\/|import\s+['"][./]*(?:convert\/)?fast\//.test(
    readFileSync(join(ROOT, file), 'utf8'),
  )

describe('convert: the model and its accelerators', () => {
  it('reads the imports it checks', () => {
    for (const door of DOORS) expect(importsFast(door), door).toBe(true)
  })

  it('no module of lmt but the doors and fast/ itself imports convert/fast/', () => {
    const importers = sources('src')
      .filter(
        (f) =>
          !f.startsWith('src/convert/fast/') &&
          // simulate's own fast/ matches the pattern too: of simulate, only its conversion door is checked
          (!f.startsWith('src/simulate/') || DOORS.includes(f)) &&
          !f.startsWith('src/formats/lct/'),
      )
      .filter((f) => !f.startsWith('src/formats/json/') && importsFast(f))
    expect(importers.sort()).toEqual([...DOORS].sort())
  })

  it("convert's model imports no accelerator of any feature (no fast/ folder)", () => {
    const anyFast = /(?:from|import)\s+['"][^'"]*\/fast\//
    const model = sources('src/convert').filter((f) => !f.startsWith('src/convert/fast/'))
    expect(model.length).toBeGreaterThan(10)
    expect(model.filter((f) => anyFast.test(readFileSync(join(ROOT, f), 'utf8')))).toEqual([])
  })
})
