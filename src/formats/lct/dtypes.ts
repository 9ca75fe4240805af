/** torch dtype names (exactly `str(dtype)`) and their item sizes in bytes (docs/lct.md §5.4). */
const SIZES: Array<[number, string[]]> = [
  [
    1,
    [
      'torch.uint8',
      'torch.int8',
      'torch.bool',
      'torch.quint8',
      'torch.qint8',
      'torch.quint4x2',
      'torch.quint2x4',
      'torch.float8_e4m3fn',
      'torch.float8_e4m3fnuz',
      'torch.float8_e5m2',
      'torch.float8_e5m2fnuz',
      'torch.float8_e8m0fnu',
      'torch.float4_e2m1fn_x2',
      'torch.bits8',
      'torch.bits1x8',
      'torch.bits2x4',
      'torch.bits4x2',
    ],
  ],
  [2, ['torch.float16', 'torch.bfloat16', 'torch.int16', 'torch.uint16', 'torch.bits16']],
  [4, ['torch.float32', 'torch.int32', 'torch.uint32', 'torch.qint32', 'torch.complex32']],
  [8, ['torch.float64', 'torch.int64', 'torch.uint64', 'torch.complex64']],
  [16, ['torch.complex128']],
  // lmt assumption: sub-byte types are stored one element per byte
  [1, [1, 2, 3, 4, 5, 6, 7].flatMap((n) => [`torch.uint${n}`, `torch.int${n}`])],
]

export const DTYPE_ITEM_SIZES: ReadonlyMap<string, number> = new Map(
  SIZES.flatMap(([size, names]) => names.map((n) => [n, size] as const)),
)

export function dtypeItemSize(name: string): number | undefined {
  return DTYPE_ITEM_SIZES.get(name)
}
