/**
 * Python's `repr(float)`: shortest round-trip digits, positional for exponents -4..15, else `d.ddde±XX`.
 */
export function pythonFloatRepr(v: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return 'Infinity'
  if (v === -Infinity) return '-Infinity'
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0'
  const sign = v < 0 ? '-' : ''
  const exp = Math.abs(v).toExponential() // shortest round-trip digits: "d.ddde+x"
  const ePos = exp.indexOf('e')
  const mantissa = exp.slice(0, ePos)
  const x = Number(exp.slice(ePos + 1))
  const digits = mantissa.replace('.', '')
  if (x >= -4 && x <= 15) {
    if (x < 0) return `${sign}0.${'0'.repeat(-x - 1)}${digits}`
    const intLen = x + 1
    if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`
    return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`
  }
  const abs = Math.abs(x)
  return `${sign}${mantissa}e${x < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`
}
