import {type HashInput, KeyList} from './key-list.js'

const K = 0x9e3779b97f4a7c15n
const M = (1n << 64n) - 1n

function toBig(v: HashInput): bigint {
  return typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : BigInt(v)
}

/** One step of the prefix hash in unsigned 64-bit arithmetic, returned as a signed int64. */
export function hashInt64(prev: HashInput, value: HashInput): bigint {
  const u = BigInt.asUintN(64, toBig(prev))
  const v = BigInt.asUintN(64, toBig(value))
  return BigInt.asIntN(64, u ^ ((v + K + ((u << 12n) & M) + (u >> 32n)) & M))
}

/** The chained prefix hash: key i is the running hash after element i, starting from 0. */
export function prefixHash(ids: ArrayLike<HashInput>): bigint[] {
  return KeyList.prefixHash(ids).toArray()
}

/** Block ids of a token list: the hash chain over tokens, one id per block (partial tail unless `truncate`). */
export function tokensToBlockIds(
  tokens: ArrayLike<HashInput>,
  blockSize: number,
  truncate = false,
): bigint[] {
  return KeyList.tokenBlocks(tokens, blockSize, truncate).toArray()
}
