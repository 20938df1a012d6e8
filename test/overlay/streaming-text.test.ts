import { describe, expect, it } from 'vitest'
import { addDelta, settleStreaming, streamingTextOf } from '../../src/overlay/data/streaming-text.ts'

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
})
