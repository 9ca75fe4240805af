// The memory layout of a KV block as the bridge's `--kv-layout` / `--bytes-per-block` flags give it.
import {lmtError} from '../errors.js'
import {dtypeItemSize} from '../formats/lct/dtypes.js'
import {MemoryLayoutDesc} from '../formats/lct/values.js'

const DTYPE_SHORT = /^[a-z0-9_]+$/

/**
 * `--kv-layout`: a JSON `{"shapes": [[…]], "dtypes": ["torch.bfloat16"]}`, or the shorthand
 * `2x32x16x8x128:bfloat16[;…]` (one shape per `;`).
 */
export function parseKvLayout(text: string): MemoryLayoutDesc {
  const bad = (why: string) =>
    lmtError('CONVERT_BAD_KV_LAYOUT', why, {
      suggestions: [
        'e.g. --kv-layout 2x36x16x8x128:bfloat16 (K and V, 36 layers, 16 tokens, 8 heads, head size 128)',
      ],
    })
  let shapes: number[][]
  let dtypes: string[]
  if (text.trim().startsWith('{')) {
    let v: {shapes?: unknown; dtypes?: unknown}
    try {
      v = JSON.parse(text)
    } catch (err) {
      throw bad((err as Error).message)
    }
    if (!Array.isArray(v.shapes) || !Array.isArray(v.dtypes)) throw bad('needs "shapes" and "dtypes" arrays')
    shapes = v.shapes as number[][]
    dtypes = v.dtypes as string[]
  } else {
    shapes = []
    dtypes = []
    for (const part of text.split(';')) {
      const [dims, dtype = 'bfloat16'] = part.split(':')
      shapes.push(dims.split('x').map((d) => Number(d)))
      dtypes.push(DTYPE_SHORT.test(dtype) ? `torch.${dtype}` : dtype)
    }
  }
  if (shapes.length === 0 || shapes.length !== dtypes.length)
    throw bad('shapes and dtypes must have the same, non-zero length')
  for (const s of shapes)
    if (!Array.isArray(s) || s.length === 0 || !s.every((d) => Number.isInteger(d) && d > 0))
      throw bad('every dimension must be a positive integer')
  for (const d of dtypes) if (dtypeItemSize(d) === undefined) throw bad(`unknown dtype '${d}'`)
  return new MemoryLayoutDesc(shapes, dtypes)
}

/** `--bytes-per-block N`: a one-dimensional uint8 layout of N bytes. */
export function bytesLayout(n: number): MemoryLayoutDesc {
  return new MemoryLayoutDesc([[n]], ['torch.uint8'])
}
