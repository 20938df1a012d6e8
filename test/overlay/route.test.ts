import { describe, expect, it } from 'vitest'
import { sessionIdFromUrl, sessionPath } from '../../src/overlay/lib/route.ts'

describe('sessionIdFromUrl', () => {
  it('reads /s/<id>, with or without a trailing slash', () => {
    expect(sessionIdFromUrl('/s/abc_DEF-123', '')).toBe('abc_DEF-123')
    expect(sessionIdFromUrl('/s/abc/', '')).toBe('abc')
  })

  it('accepts ?session=<id> as an alias', () => {
    expect(sessionIdFromUrl('/', '?session=abc')).toBe('abc')
  })

  it('names no Session for other paths or invalid ids', () => {
    expect(sessionIdFromUrl('/', '')).toBeNull()
    expect(sessionIdFromUrl('/s/', '')).toBeNull()
    expect(sessionIdFromUrl('/s/a%20b', '')).toBeNull()
    expect(sessionIdFromUrl('/s/%E0%A4%A', '')).toBeNull()
    expect(sessionIdFromUrl(`/s/${'a'.repeat(65)}`, '')).toBeNull()
    expect(sessionIdFromUrl('/x/abc', '?session=a.b')).toBeNull()
  })
})

describe('sessionPath', () => {
  it('round-trips through sessionIdFromUrl', () => {
    expect(sessionPath('abc_1-2')).toBe('/s/abc_1-2')
    expect(sessionIdFromUrl(sessionPath('abc_1-2'), '')).toBe('abc_1-2')
  })
})
