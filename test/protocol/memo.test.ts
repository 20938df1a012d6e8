import { describe, expect, it } from 'vitest'
import { memoized } from '../../src/protocol/index.ts'

describe('memoized', () => {
  it('computes each key once, null answers included, and forgets every answer at once when full', () => {
    const asked: string[] = []
    const length = memoized((key: string) => {
      asked.push(key)
      return key === '' ? null : key.length
    }, 2)
    expect([length('ab'), length('ab'), length(''), length('')]).toEqual([2, 2, null, null])
    expect(asked).toEqual(['ab', ''])
    expect(length('abc')).toBe(3)
    expect([length('ab'), length('abc')]).toEqual([2, 3])
    expect(asked).toEqual(['ab', '', 'abc', 'ab'])
  })

  it('does not hold answers that are not worth keeping, and computes them again', () => {
    let computed = 0
    const even = memoized((key: string) => (computed++, key.length % 2 === 0), 8, (answer) => answer)
    expect([even('ab'), even('ab'), even('a'), even('a')]).toEqual([true, true, false, false])
    expect(computed).toBe(3)
  })
})
