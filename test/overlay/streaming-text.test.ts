import { describe, expect, it } from 'vitest'
import { addDelta, cutTextOf, endStreaming, settleStreaming, streamingTextOf } from '../../src/overlay/data/streaming-text.ts'

describe('streaming text', () => {
  it('grows per step as deltas arrive and gives way to the durable message of that step', () => {
    addDelta('s1', { turn: 2, step: 1, text: 'Good ' })
    addDelta('s1', { turn: 2, step: 1, text: 'morning' })
    addDelta('s1', { turn: 2, step: 2, text: 'Next' })
    addDelta('s2', { turn: 1, step: 1, text: 'elsewhere' })
    expect(streamingTextOf('s1')).toEqual([
      { turn: 2, step: 1, text: 'Good morning' },
      { turn: 2, step: 2, text: 'Next' },
    ])
    settleStreaming('s1', 2, 1)
    expect(streamingTextOf('s1')).toEqual([{ turn: 2, step: 2, text: 'Next' }])
    settleStreaming('s1', 2)
    expect(streamingTextOf('s1')).toEqual([])
    expect(streamingTextOf('s2')).toEqual([{ turn: 1, step: 1, text: 'elsewhere' }])
    settleStreaming('s2', null)
    expect(streamingTextOf('s2')).toEqual([])
  })

  it('keeps what a stopped or failed turn had written, its steps joined, and nothing of a turn that completed', () => {
    addDelta('s3', { turn: 4, step: 1, text: 'First step.' })
    addDelta('s3', { turn: 4, step: 2, text: 'Here is the pl' })
    addDelta('s3', { turn: 5, step: 1, text: 'next turn' })
    endStreaming('s3', 4, true)
    expect(cutTextOf('s3', 4)).toBe('First step.\n\nHere is the pl')
    expect(streamingTextOf('s3')).toEqual([{ turn: 5, step: 1, text: 'next turn' }])
    endStreaming('s3', 5, false)
    expect(cutTextOf('s3', 5)).toBeNull()
    expect(streamingTextOf('s3')).toEqual([])
    // a stop with nothing streamed keeps nothing
    endStreaming('s3', 6, true)
    expect(cutTextOf('s3', 6)).toBeNull()
  })
})
