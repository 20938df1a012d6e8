import { randomFillSync } from 'node:crypto'

const ID_BYTES = 16
/** Random bytes drawn from the system's CSPRNG a few kilobytes at a time, each id taking fresh ones. */
const pool = Buffer.alloc(ID_BYTES * 256)
let offset = pool.length

/** A URL-safe, unguessable id (128 random bits) with a prefix. */
export function randomId(prefix = ''): string {
  if (offset === pool.length) {
    randomFillSync(pool)
    offset = 0
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES)
  offset += ID_BYTES
  return `${prefix}${id}`
}
