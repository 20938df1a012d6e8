import { describe, expect, it } from 'vitest'
import { randomId } from '../../src/host/ids.ts'

describe('randomId', () => {
  it('gives 128 random bits in URL-safe base64 after the prefix, never the same twice across many refills', () => {
    const ids = Array.from({ length: 10_000 }, () => randomId('msg-'))
    for (const id of ids) expect(id).toMatch(/^msg-[A-Za-z0-9_-]{22}$/)
    expect(new Set(ids).size).toBe(ids.length)
    expect(randomId()).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })

  it('draws every bit position: each of the 22 characters takes many values', () => {
    const ids = Array.from({ length: 2_000 }, () => randomId())
    for (let i = 0; i < 21; i++) expect(new Set(ids.map((id) => id[i])).size).toBeGreaterThan(40)
    // the last character carries 2 bits (128 = 21 × 6 + 2)
    expect(new Set(ids.map((id) => id[21])).size).toBe(4)
  })
})
