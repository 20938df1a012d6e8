import { randomBytes } from 'node:crypto'

/** A URL-safe, unguessable id (128 random bits) with a prefix. */
export function randomId(prefix = ''): string {
  return `${prefix}${randomBytes(16).toString('base64url')}`
}
