import { describe, expect, it } from 'vitest'
import { errorMessage } from '../../src/protocol/index.ts'

describe('errorMessage', () => {
  it("gives an Error's message, subclasses included", () => {
    expect(errorMessage(new Error('disk full'))).toBe('disk full')
    expect(errorMessage(new TypeError('not a string'))).toBe('not a string')
    expect(errorMessage(new Error(''))).toBe('')
  })

  it('gives anything else as String(value)', () => {
    expect(errorMessage('plain text')).toBe('plain text')
    expect(errorMessage(42)).toBe('42')
    expect(errorMessage(undefined)).toBe('undefined')
    expect(errorMessage(null)).toBe('null')
    expect(errorMessage({ message: 'not an Error' })).toBe('[object Object]')
  })
})
