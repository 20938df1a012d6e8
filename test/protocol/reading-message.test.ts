import { describe, expect, it } from 'vitest'
import {
  buildReadingMessage,
  decodeSingleTextContent,
  decodeTimeContextReading,
  isTimeContextSource,
  readingMessageId,
} from '../../src/protocol/index.ts'

const TEXT = 'four\nlines\nof\ntext'

function reading(): Record<string, unknown> {
  return {
    id: 'time-context-2-3',
    role: 'user',
    content: [{ type: 'text', text: TEXT }],
    source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: TEXT }] },
  }
}

function withSource(patch: Record<string, unknown>): Record<string, unknown> {
  const message = reading()
  return { ...message, source: { ...(message.source as Record<string, unknown>), ...patch } }
}

describe('buildReadingMessage', () => {
  it('builds the exact SPEC 5.5 message', () => {
    expect(buildReadingMessage(2, 3, TEXT)).toStrictEqual(reading())
  })

  it('names the reading after its turn and step', () => {
    expect(readingMessageId(12, 1)).toBe('time-context-12-1')
  })
})

describe('decodeTimeContextReading', () => {
  it('accepts the exact shape and returns its text', () => {
    expect(decodeTimeContextReading(reading())).toEqual({ text: TEXT })
    expect(decodeTimeContextReading(buildReadingMessage(1, 1, ''))).toEqual({ text: '' })
  })

  it('accepts a reading parsed back from JSON', () => {
    expect(decodeTimeContextReading(JSON.parse(JSON.stringify(reading())))).toEqual({ text: TEXT })
  })

  it('accepts null-prototype records', () => {
    const section = Object.assign(Object.create(null) as object, { name: 'time-context', text: TEXT })
    expect(decodeTimeContextReading(withSource({ sections: [section] }))).toEqual({ text: TEXT })
  })

  const arrayLike = { 0: { name: 'time-context', text: TEXT }, length: 1 }
  class Record2 {
    kind = 'plugin'
    plugin = 'time-context'
    form = 'snapshot'
    sections = [{ name: 'time-context', text: TEXT }]
  }
  const hiddenKey = { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: TEXT }] }
  Object.defineProperty(hiddenKey, 'extra', { value: 1, enumerable: false })
  const symbolKey = { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: TEXT }], [Symbol('x')]: 1 }

  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'time-context'],
    ['an assistant role', { ...reading(), role: 'assistant' }],
    ['no role', { ...reading(), role: undefined }],
    ['two content blocks', { ...reading(), content: [{ type: 'text', text: TEXT }, { type: 'text', text: TEXT }] }],
    ['no content blocks', { ...reading(), content: [] }],
    ['an array-like content', { ...reading(), content: { 0: { type: 'text', text: TEXT }, length: 1 } }],
    ['a content block with an extra key', { ...reading(), content: [{ type: 'text', text: TEXT, cache: true }] }],
    ['a non-text content block', { ...reading(), content: [{ type: 'image', text: TEXT }] }],
    ['a non-string content text', { ...reading(), content: [{ type: 'text', text: 1 }] }],
    ['a sparse content array', { ...reading(), content: new Array(1) }],
    ['a source with an extra key', withSource({ at: 1 })],
    ['a source without form', { ...reading(), source: { kind: 'plugin', plugin: 'time-context', sections: [{ name: 'time-context', text: TEXT }] } }],
    ['another form', withSource({ form: 'delta' })],
    ['another plugin', withSource({ plugin: 'schedule' })],
    ['another kind', withSource({ kind: 'user' })],
    ['no sections', withSource({ sections: [] })],
    ['two sections', withSource({ sections: [{ name: 'time-context', text: TEXT }, { name: 'time-context', text: TEXT }] })],
    ['array-like sections', withSource({ sections: arrayLike })],
    ['a section with an extra key', withSource({ sections: [{ name: 'time-context', text: TEXT, zone: 'UTC' }] })],
    ['a section with another name', withSource({ sections: [{ name: 'clock', text: TEXT }] })],
    ['a section text that differs from the content', withSource({ sections: [{ name: 'time-context', text: `${TEXT} ` }] })],
    ['a class-instance source', { ...reading(), source: new Record2() }],
    ['a source with a non-enumerable extra key', { ...reading(), source: hiddenKey }],
    ['a source with a symbol key', { ...reading(), source: symbolKey }],
    ['an array source', { ...reading(), source: [] }],
  ])('rejects %s', (_name, message) => {
    expect(decodeTimeContextReading(message)).toBeNull()
  })
})

describe('decodeSingleTextContent', () => {
  it('returns the text of exactly one text block', () => {
    expect(decodeSingleTextContent({ content: [{ type: 'text', text: 'x' }] })).toBe('x')
  })

  it('returns null otherwise', () => {
    expect(decodeSingleTextContent({ content: [{ text: 'x', type: 'text', extra: 1 }] })).toBeNull()
    expect(decodeSingleTextContent({ content: 'x' })).toBeNull()
    expect(decodeSingleTextContent(null)).toBeNull()
  })
})

describe('isTimeContextSource', () => {
  it('recognises any source naming the time-context plugin', () => {
    expect(isTimeContextSource({ kind: 'plugin', plugin: 'time-context' })).toBe(true)
    expect(isTimeContextSource({ kind: 'plugin', plugin: 'time-context', extra: 1 })).toBe(true)
  })

  it('ignores other sources', () => {
    expect(isTimeContextSource({ kind: 'plugin', plugin: 'compact' })).toBe(false)
    expect(isTimeContextSource({ kind: 'user', plugin: 'time-context' })).toBe(false)
    expect(isTimeContextSource(null)).toBe(false)
    expect(isTimeContextSource('time-context')).toBe(false)
  })
})
