import { describe, expect, it } from 'vitest'
import { LogBuilder, header, plainMessage, pluginMessage, reading, readingEvent, rpcMessage, text, verdict, violation } from './builder.ts'

const SHANGHAI = header('Asia/Shanghai')
const B = Date.UTC(2026, 6, 15, 1, 0, 0)
const C = B + 70_000 + 90_061_000
const S = 1000

const T11 = text(
  'Time sampled while preparing turn 1, step 1: 2026-07-15T09:00:00+08:00[Asia/Shanghai]',
  'Session time zone: Asia/Shanghai.',
  'Client time zone for this request: Asia/Shanghai.',
  'Elapsed since the preceding model-visible message: unavailable.',
)
const T12 = text(
  'Time sampled while preparing turn 1, step 2: 2026-07-15T09:01:02+08:00[Asia/Shanghai]',
  'Session time zone: Asia/Shanghai.',
  'Client time zone for this request: Asia/Shanghai.',
  'Elapsed since the preceding step context: 1m 1s.',
)
const LINE_1 = 'Time sampled while preparing turn 2, step 1: 2026-07-16T10:02:11+08:00[Asia/Shanghai]'
const LINE_2 = 'Session time zone: Asia/Shanghai.'
const LINE_3 = 'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai"].'
const LINE_4 = 'Elapsed since the preceding model-visible message: 1d 1h 1m 1s.'
const VALID = text(LINE_1, LINE_2, LINE_3, LINE_4)

function turnOne(): LogBuilder {
  return new LogBuilder()
    .turnStart(1, B)
    .stepStart(1, 1, B)
    .message(rpcMessage('m1', 'Asia/Shanghai'), B)
    .message(reading(T11, 1, 1), B + 200)
    .requestHeader(B + 300)
    .assistant(1, 1, B + 5000)
    .toolCall(1, 1, B + 5000)
    .toolResult(1, 1, B + 6000)
    .stepEnd(1, 1, B + 6000)
    .stepStart(1, 2, B + 6000)
    .message(reading(T12, 1, 2), B + 62_500)
    .assistant(1, 2, B + 70_000)
    .stepEnd(1, 2, B + 70_000)
    .turnEnd(1, B + 70_000)
}

function turnTwoOpen(): LogBuilder {
  return turnOne()
    .turnStart(2, C - S)
    .stepStart(2, 1, C - S)
    .message(rpcMessage('m2', 'America/New_York'), C - S)
    .message(rpcMessage('m3', 'Asia/Shanghai'), C - S)
}

function candidate(log: LogBuilder, readingText: string, time = C + 100, turn = 2, step = 1) {
  return readingEvent(log, reading(readingText, turn, step), time)
}

function check(log: LogBuilder, data: unknown, time = C + 100, hdr = SHANGHAI): string {
  return verdict(hdr, log, readingEvent(log, data, time))
}

function checkText(readingText: string, log = turnTwoOpen(), time = C + 100, hdr = SHANGHAI): string {
  return verdict(hdr, log, candidate(log, readingText, time))
}

describe('the base history', () => {
  it('accepts a valid step-1 reading with mixed zones and a day-long elapsed time', () => {
    expect(checkText(VALID)).toBe('ok')
  })

  it('accepts the readings of turn 1 (unavailable step 1, step-context step 2)', () => {
    const full = turnOne()
    const last = full.events.pop()
    expect(last?.type).toBe('turn/end')
    const log = new LogBuilder()
    log.events.push(...full.events.slice(0, 10))
    expect(verdict(SHANGHAI, log, full.events[10])).toBe('ok')
    log.events.length = 3
    expect(verdict(SHANGHAI, log, full.events[3])).toBe('ok')
  })

  it('never checks user/messages that are not time-context readings', () => {
    const log = turnTwoOpen()
    expect(check(log, { ...pluginMessage('c', 'compact'), content: 'not even an array' })).toBe('ok')
    expect(check(log, { ...plainMessage('p'), content: [] })).toBe('ok')
    expect(check(new LogBuilder(), rpcMessage('x', 'UTC'))).toBe('ok')
  })
})

describe('check 1: exactly one text block', () => {
  const reason = violation('time-context messages must contain exactly one text block')
  const valid = reading(VALID, 2, 1)

  it.each<[string, unknown]>([
    ['two blocks', [{ type: 'text', text: VALID }, { type: 'text', text: VALID }]],
    ['no blocks', []],
    ['a block with an extra key', [{ type: 'text', text: VALID, cache: true }]],
    ['a non-text block', [{ type: 'image', text: VALID }]],
    ['a non-string text', [{ type: 'text', text: 7 }]],
    ['a string instead of blocks', VALID],
    ['an array-like content', { 0: { type: 'text', text: VALID }, length: 1 }],
  ])('rejects %s', (_name, content) => {
    expect(check(turnTwoOpen(), { ...valid, content })).toBe(reason)
  })

  it('comes before every other check', () => {
    expect(check(new LogBuilder(), { ...valid, content: [], source: { kind: 'plugin', plugin: 'time-context' } })).toBe(reason)
  })
})

describe('check 2: the four-line format', () => {
  const reason = violation('time-context message does not match the durable reading format')

  it.each([
    ['a trailing newline', `${VALID}\n`],
    ['CRLF line ends', VALID.split('\n').join('\r\n')],
    ['three lines', text(LINE_1, LINE_2, LINE_3)],
    ['an unknown baseline label', text(LINE_1, LINE_2, LINE_3, 'Elapsed since the preceding request: 1s.')],
    ['a non-canonical duration', text(LINE_1, LINE_2, LINE_3, 'Elapsed since the preceding model-visible message: 0d 1s.')],
    ['unsorted mixed zones', text(LINE_1, LINE_2, 'Client time zone for this request: mixed ["Asia/Shanghai","America/New_York"].', LINE_4)],
    ['an empty text', ''],
  ])('rejects %s', (_name, readingText) => {
    expect(checkText(readingText)).toBe(reason)
  })

  it('comes before the position checks', () => {
    expect(checkText('free text', new LogBuilder())).toBe(reason)
  })
})

describe('check 3: positive safe integers', () => {
  const reason = violation('time-context turn and step must be positive safe integers')

  it('rejects turn 0', () => {
    expect(checkText(text('Time sampled while preparing turn 0, step 1: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it('rejects step 0', () => {
    expect(checkText(text('Time sampled while preparing turn 2, step 0: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it('rejects an exact integer beyond the safe range', () => {
    expect(checkText(text('Time sampled while preparing turn 9007199254740992, step 1: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it.each([
    ['turn', '9007199254740993', '1'],
    ['turn', '99999999999999999', '1'],
    ['turn', '01', '1'],
    ['turn', '02', '1'],
    ['step', '2', '01'],
    ['step', '2', '9007199254740993'],
    ['step', '2', '00'],
  ])('rejects the %s digits of turn %s, step %s here, not as a format failure', (_slot, turn, step) => {
    const line = `Time sampled while preparing turn ${turn}, step ${step}: 2026-07-16T10:02:11+08:00[Asia/Shanghai]`
    expect(checkText(text(line, LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it('comes after the format check', () => {
    const line = 'Time sampled while preparing turn 01, step 1: 2026-07-16T10:02:11+08:00[Asia/Shanghai]'
    expect(checkText(text(line, 'Session time zone: CST.', LINE_3, LINE_4))).toBe(
      violation('time-context message does not match the durable reading format'),
    )
  })

  it('comes before the position checks', () => {
    expect(checkText(text('Time sampled while preparing turn 0, step 0: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4), new LogBuilder())).toBe(reason)
  })
})

describe('check 4: position in the open turn and step', () => {
  it('rejects a reading before any turn', () => {
    expect(checkText(VALID, new LogBuilder())).toBe(violation('time-context reading must be appended inside an open turn'))
  })

  it('rejects a reading after turn/end', () => {
    expect(checkText(T12, turnOne(), B + 80_000)).toBe(violation('time-context reading must be appended inside an open turn'))
  })

  it('rejects a reading in an open turn before step/start', () => {
    const log = turnOne().turnStart(2, C - S)
    expect(checkText(VALID, log)).toBe(violation('time-context reading must follow step/start'))
  })

  it('rejects a reading after step/end', () => {
    const log = turnTwoOpen().requestHeader(C).assistant(2, 1, C).stepEnd(2, 1, C)
    expect(checkText(VALID, log, C + 100)).toBe(violation('time-context reading must follow step/start'))
  })

  it('rejects a reading after request/header in the same step', () => {
    const log = turnTwoOpen().requestHeader(C)
    expect(checkText(VALID, log)).toBe(violation('time-context reading must precede request/header'))
  })

  it('accepts a reading after the batch and after a request/header of an earlier step', () => {
    expect(turnOne().events.some((event) => event.type === 'request/header')).toBe(true)
    expect(checkText(VALID, turnTwoOpen())).toBe('ok')
  })
})

describe('check 5: the turn and step the reading names', () => {
  it('rejects another step', () => {
    const other = text('Time sampled while preparing turn 2, step 2: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4)
    expect(checkText(other)).toBe(violation('time-context reading names turn 2/step 2, expected turn 2/step 1'))
  })

  it('rejects another turn', () => {
    const other = text('Time sampled while preparing turn 1, step 1: 2026-07-16T10:02:11+08:00[Asia/Shanghai]', LINE_2, LINE_3, LINE_4)
    expect(checkText(other)).toBe(violation('time-context reading names turn 1/step 1, expected turn 2/step 1'))
  })
})

describe('check 6: one reading per step', () => {
  it('rejects a second reading in the same step, even an otherwise valid one', () => {
    const log = turnTwoOpen().message(reading(VALID, 2, 1), C + 100)
    expect(checkText(VALID, log, C + 200)).toBe(violation('time-context step 1 already has a reading'))
  })

  it('names the open step', () => {
    const log = turnOne()
    log.events.length = 11
    const again = readingEvent(log, reading(T12, 1, 2), B + 62_600)
    expect(verdict(SHANGHAI, log, again)).toBe(violation('time-context step 2 already has a reading'))
  })
})

describe('check 7: the exact snapshot source', () => {
  const reason = violation('time-context source must carry only the exact snapshot text')
  const valid = reading(VALID, 2, 1)
  const sections = [{ name: 'time-context', text: VALID }]

  it.each<[string, unknown]>([
    ['an extra source key', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections, zone: 'UTC' } }],
    ['a missing form', { ...valid, source: { kind: 'plugin', plugin: 'time-context', sections } }],
    ['another form', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'delta', sections } }],
    ['array-like sections', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: { 0: sections[0], length: 1 } } }],
    ['two sections', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [sections[0], sections[0]] } }],
    ['a section with an extra key', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ ...sections[0], at: 1 }] } }],
    ['another section name', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'clock', text: VALID }] } }],
    ['section text that differs', { ...valid, source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: `${VALID}.` }] } }],
    ['a non-user role', { ...valid, role: 'assistant' }],
  ])('rejects %s', (_name, data) => {
    expect(check(turnTwoOpen(), data)).toBe(reason)
  })
})

describe('check 8: Session and client zone lines', () => {
  const reason = violation('time-context text does not match the Session and current request zones')

  it('rejects an unavailable Session zone when the header has one', () => {
    expect(checkText(text(LINE_1, 'Session time zone: unavailable.', LINE_3, LINE_4))).toBe(reason)
  })

  it('rejects another Session zone than the header', () => {
    const log = new LogBuilder()
      .assistant(1, 1, B + 70_000)
      .turnStart(2, C - S)
      .stepStart(2, 1, C - S)
      .message(rpcMessage('m2', 'America/New_York'), C - S)
      .message(rpcMessage('m3', 'Asia/Shanghai'), C - S)
    expect(checkText(VALID, log, C + 100, SHANGHAI)).toBe('ok')
    expect(checkText(VALID, log, C + 100, header('Asia/Tokyo'))).toBe(reason)
  })

  it('rejects a zone for a headerless session', () => {
    const log = new LogBuilder().turnStart(1, C).stepStart(1, 1, C).message(plainMessage('m'), C)
    const readingText = text(
      'Time sampled while preparing turn 1, step 1: 2026-07-16T02:02:11+00:00[UTC]',
      'Session time zone: UTC.',
      'Client time zone for this request: missing.',
      'Elapsed since the preceding model-visible message: unavailable.',
    )
    expect(verdict(header(), log, readingEvent(log, reading(readingText), C))).toBe(reason)
    const accepted = readingText.replace('Session time zone: UTC.', 'Session time zone: unavailable.')
    expect(verdict(header(), log, readingEvent(log, reading(accepted), C))).toBe('ok')
  })

  it('rejects a resolved client zone when the turn has two', () => {
    expect(checkText(text(LINE_1, LINE_2, 'Client time zone for this request: Asia/Shanghai.', LINE_4))).toBe(reason)
  })

  it('rejects missing when the turn has a user-rpc message', () => {
    expect(checkText(text(LINE_1, LINE_2, 'Client time zone for this request: missing.', LINE_4))).toBe(reason)
  })

  it('ignores user-rpc zones of earlier turns', () => {
    const log = turnOne().turnStart(2, C - S).stepStart(2, 1, C - S).message(rpcMessage('m2', 'America/New_York'), C - S)
    expect(checkText(VALID, log)).toBe(reason)
    expect(checkText(text(LINE_1, LINE_2, 'Client time zone for this request: America/New_York.', LINE_4), log)).toBe('ok')
  })

  it('counts user-rpc messages of earlier steps of the same turn', () => {
    const log = turnTwoOpen()
      .message(reading(VALID, 2, 1), C + 100)
      .assistant(2, 1, C + 200)
      .toolResult(2, 1, C + 300)
      .stepEnd(2, 1, C + 300)
      .stepStart(2, 2, C + 300)
      .message(rpcMessage('steer', 'Europe/Paris'), C + 300)
    const next = text(
      'Time sampled while preparing turn 2, step 2: 2026-07-16T10:02:12+08:00[Asia/Shanghai]',
      LINE_2,
      'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai","Europe/Paris"].',
      'Elapsed since the preceding step context: 0s.',
    )
    expect(verdict(SHANGHAI, log, candidate(log, next, C + 1500, 2, 2))).toBe('ok')
  })
})

describe('check 9: the baseline label', () => {
  it('rejects step context on step 1', () => {
    expect(checkText(text(LINE_1, LINE_2, LINE_3, 'Elapsed since the preceding step context: 1d 1h 1m 1s.'))).toBe(
      violation('time-context step 1 uses the wrong elapsed-time baseline "step context"'),
    )
  })

  it('rejects model-visible message on a later step', () => {
    const log = turnOne()
    log.events.length = 10
    const wrong = T12.replace('step context', 'model-visible message')
    expect(verdict(SHANGHAI, log, readingEvent(log, reading(wrong, 1, 2), B + 62_500))).toBe(
      violation('time-context step 2 uses the wrong elapsed-time baseline "model-visible message"'),
    )
  })
})

describe('check 10: the timestamp parses and does not postdate its event', () => {
  const reason = violation('time-context rendered timestamp must parse and not postdate its durable event')
  const withTimestamp = (timestamp: string): string =>
    text(`Time sampled while preparing turn 2, step 1: ${timestamp}`, LINE_2, LINE_3, LINE_4)

  it('rejects a timestamp after the event time', () => {
    expect(checkText(VALID, turnTwoOpen(), C - 1)).toBe(reason)
  })

  it('accepts an event time equal to the rendered second', () => {
    expect(checkText(VALID, turnTwoOpen(), C)).toBe('ok')
  })

  it.each([
    ['words', 'soon'],
    ['the Z designator', '2026-07-16T02:02:11Z[UTC]'],
    ['an offset that is not the zone offset', '2026-07-16T10:02:11+09:00[Asia/Shanghai]'],
    ['an unknown zone', '2026-07-16T10:02:11+08:00[Not/A_Real_Zone]'],
    ['fractional seconds', '2026-07-16T10:02:11.000+08:00[Asia/Shanghai]'],
  ])('rejects %s', (_name, timestamp) => {
    expect(checkText(withTimestamp(timestamp))).toBe(reason)
  })
})

describe('check 11: elapsed time against the durable baseline', () => {
  const reason = violation('time-context elapsed time does not match its durable baseline')
  const withElapsed = (elapsed: string): string => text(LINE_1, LINE_2, LINE_3, `Elapsed since the preceding model-visible message: ${elapsed}.`)

  it('rejects one second more or less than the baseline allows', () => {
    expect(checkText(withElapsed('1d 1h 1m 2s'))).toBe(reason)
    expect(checkText(withElapsed('1d 1h 1m 0s'))).toBe(reason)
  })

  it('rejects unavailable when a baseline exists', () => {
    expect(checkText(withElapsed('unavailable'))).toBe(reason)
  })

  it('rejects a duration when there is no baseline', () => {
    const log = turnOne()
    log.events.length = 3
    expect(verdict(SHANGHAI, log, readingEvent(log, reading(T11.replace('unavailable.', '0s.')), B + 200))).toBe(reason)
  })

  it('measures step 1 from before step/start, not from the batch entering it', () => {
    expect(checkText(withElapsed('1s'))).toBe(reason)
  })

  it('measures later steps from the same-turn reading, not the latest message', () => {
    const log = turnOne()
    log.events.length = 10
    expect(verdict(SHANGHAI, log, readingEvent(log, reading(T12.replace('1m 1s', '57s'), 1, 2), B + 62_500))).toBe(reason)
    expect(verdict(SHANGHAI, log, readingEvent(log, reading(T12.replace('1m 1s', '1m 2s'), 1, 2), B + 62_500))).toBe('ok')
    expect(verdict(SHANGHAI, log, readingEvent(log, reading(T12.replace('1m 1s', '1m 3s'), 1, 2), B + 62_500))).toBe(reason)
  })

  describe('the sampling window [rendered, min(rendered + 999, event time)]', () => {
    const X = Date.UTC(2026, 0, 1, 0, 0, 0)
    const UTC = header('UTC')
    const log = (): LogBuilder => new LogBuilder().assistant(0, 1, X + 500).turnStart(1, X + 600).stepStart(1, 1, X + 600).message(plainMessage('m'), X + 600)
    const at = (elapsed: string): string =>
      text(
        'Time sampled while preparing turn 1, step 1: 2026-01-01T00:00:10+00:00[UTC]',
        'Session time zone: UTC.',
        'Client time zone for this request: missing.',
        `Elapsed since the preceding model-visible message: ${elapsed}.`,
      )
    const judge = (elapsed: string, time: number): string => {
      const l = log()
      return verdict(UTC, l, readingEvent(l, reading(at(elapsed)), time))
    }

    it('accepts both whole seconds the window allows', () => {
      expect(judge('9s', X + 10_999)).toBe('ok')
      expect(judge('10s', X + 10_999)).toBe('ok')
    })

    it('rejects seconds outside the window', () => {
      expect(judge('8s', X + 10_999)).toBe(reason)
      expect(judge('11s', X + 10_999)).toBe(reason)
    })

    it('caps the window at the event time', () => {
      expect(judge('10s', X + 10_400)).toBe(reason)
      expect(judge('9s', X + 10_400)).toBe('ok')
    })

    it('caps the window at rendered + 999 when the append came much later', () => {
      expect(judge('10s', X + 60_000)).toBe('ok')
      expect(judge('11s', X + 60_000)).toBe(reason)
    })
  })

  it('accepts 0s and only 0s when the wall clock was behind the baseline', () => {
    const X = Date.UTC(2026, 0, 1, 0, 0, 0)
    const UTC = header('UTC')
    const log = new LogBuilder().assistant(0, 1, X + 3000).turnStart(1, X + 3000).stepStart(1, 1, X + 3000)
    const at = (elapsed: string): string =>
      text(
        'Time sampled while preparing turn 1, step 1: 2026-01-01T00:00:00+00:00[UTC]',
        'Session time zone: UTC.',
        'Client time zone for this request: missing.',
        `Elapsed since the preceding model-visible message: ${elapsed}.`,
      )
    expect(verdict(UTC, log, readingEvent(log, reading(at('0s')), X + 100))).toBe('ok')
    expect(verdict(UTC, log, readingEvent(log, reading(at('1s')), X + 100))).toBe(reason)
    expect(verdict(UTC, log, readingEvent(log, reading(at('unavailable')), X + 100))).toBe(reason)
  })

  it('requires unavailable on a later step whose turn has no earlier reading', () => {
    const log = turnOne()
      .turnStart(2, C - S)
      .stepStart(2, 1, C - S)
      .message(rpcMessage('m2', 'Asia/Shanghai'), C - S)
      .assistant(2, 1, C - S)
      .toolResult(2, 1, C - S)
      .stepEnd(2, 1, C - S)
      .stepStart(2, 2, C - S)
    const at = (elapsed: string): string =>
      text(
        'Time sampled while preparing turn 2, step 2: 2026-07-16T10:02:11+08:00[Asia/Shanghai]',
        LINE_2,
        'Client time zone for this request: Asia/Shanghai.',
        `Elapsed since the preceding step context: ${elapsed}.`,
      )
    expect(verdict(SHANGHAI, log, candidate(log, at('unavailable'), C + 100, 2, 2))).toBe('ok')
    expect(verdict(SHANGHAI, log, candidate(log, at('1s'), C + 100, 2, 2))).toBe(reason)
  })
})

describe('check 12: the Session zone formats the timestamp', () => {
  const reason = violation('time-context rendered timestamp does not match the Session time zone')

  it('rejects the same instant rendered in another zone', () => {
    expect(checkText(text('Time sampled while preparing turn 2, step 1: 2026-07-16T02:02:11+00:00[UTC]', LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it('rejects the same instant rendered under an alias of the Session zone', () => {
    expect(checkText(text('Time sampled while preparing turn 2, step 1: 2026-07-16T10:02:11+08:00[Asia/Chongqing]', LINE_2, LINE_3, LINE_4))).toBe(reason)
  })

  it('accepts any zone for a headerless session', () => {
    const log = new LogBuilder().turnStart(1, C).stepStart(1, 1, C)
    const readingText = text(
      'Time sampled while preparing turn 1, step 1: 2026-07-15T22:02:11-04:00[America/New_York]',
      'Session time zone: unavailable.',
      'Client time zone for this request: missing.',
      'Elapsed since the preceding model-visible message: unavailable.',
    )
    expect(verdict(header(), log, readingEvent(log, reading(readingText), C + 500))).toBe('ok')
  })
})
