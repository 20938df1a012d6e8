import { describe, expect, it } from 'vitest'
import { parseReadingText, readReadingText, renderReadingText } from '../../src/protocol/index.ts'
import type { ReadingFields } from '../../src/protocol/index.ts'

const resolved: ReadingFields = {
  turn: 3,
  step: 1,
  timestamp: '2026-07-15T09:01:01+08:00[Asia/Shanghai]',
  session: 'Asia/Shanghai',
  client: { kind: 'resolved', timeZone: 'Asia/Shanghai' },
  baseline: 'model-visible message',
  elapsed: '1d 1h 1m 1s',
}

const resolvedText = [
  'Time sampled while preparing turn 3, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
  'Session time zone: Asia/Shanghai.',
  'Client time zone for this request: Asia/Shanghai.',
  'Elapsed since the preceding model-visible message: 1d 1h 1m 1s.',
].join('\n')

const mixed: ReadingFields = {
  turn: 12,
  step: 4,
  timestamp: '2026-01-02T03:04:05-05:00[America/New_York]',
  session: 'unavailable',
  client: { kind: 'mixed', timeZones: ['America/New_York', 'Asia/Shanghai'] },
  baseline: 'step context',
  elapsed: 'unavailable',
}

const mixedText = [
  'Time sampled while preparing turn 12, step 4: 2026-01-02T03:04:05-05:00[America/New_York]',
  'Session time zone: unavailable.',
  'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai"].',
  'Elapsed since the preceding step context: unavailable.',
].join('\n')

function variant(lineIndex: number, line: string): string {
  const lines = resolvedText.split('\n')
  lines[lineIndex] = line
  return lines.join('\n')
}

describe('renderReadingText', () => {
  it('renders a resolved reading as exactly four lines with no trailing newline', () => {
    expect(renderReadingText(resolved)).toBe(resolvedText)
  })

  it('renders a headerless mixed reading', () => {
    expect(renderReadingText(mixed)).toBe(mixedText)
  })

  it('renders a missing client zone', () => {
    expect(renderReadingText({ ...resolved, client: { kind: 'missing' }, elapsed: '0s' })).toBe(
      [
        'Time sampled while preparing turn 3, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]',
        'Session time zone: Asia/Shanghai.',
        'Client time zone for this request: missing.',
        'Elapsed since the preceding model-visible message: 0s.',
      ].join('\n'),
    )
  })
})

describe('parseReadingText', () => {
  it('parses what it renders', () => {
    expect(parseReadingText(resolvedText)).toEqual(resolved)
    expect(parseReadingText(mixedText)).toEqual(mixed)
    const missing: ReadingFields = { ...resolved, client: { kind: 'missing' }, session: 'UTC', elapsed: '1h 0s' }
    expect(parseReadingText(renderReadingText(missing))).toEqual(missing)
  })

  it('leaves the timestamp slot to the timestamp parser', () => {
    const text = renderReadingText({ ...resolved, timestamp: 'yesterday' })
    expect(parseReadingText(text)).toEqual({ ...resolved, timestamp: 'yesterday' })
  })

  it.each([
    ['a trailing newline', `${resolvedText}\n`],
    ['a leading newline', `\n${resolvedText}`],
    ['three lines', resolvedText.split('\n').slice(0, 3).join('\n')],
    ['CRLF line ends', resolvedText.split('\n').join('\r\n')],
    ['an empty string', ''],
    ['a leading zero turn', variant(0, 'Time sampled while preparing turn 03, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]')],
    ['a negative step', variant(0, 'Time sampled while preparing turn 3, step -1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]')],
    ['a turn beyond exact numbers', variant(0, 'Time sampled while preparing turn 9007199254740993, step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]')],
    ['a timestamp with a space', variant(0, 'Time sampled while preparing turn 3, step 1: 2026-07-15 09:01:01')],
    ['a missing timestamp', variant(0, 'Time sampled while preparing turn 3, step 1: ')],
    ['a double space', variant(0, 'Time sampled while preparing turn 3,  step 1: 2026-07-15T09:01:01+08:00[Asia/Shanghai]')],
    ['a missing full stop', variant(1, 'Session time zone: Asia/Shanghai')],
    ['an abbreviation as the session zone', variant(1, 'Session time zone: CST.')],
    ['a capitalised unavailable', variant(1, 'Session time zone: Unavailable.')],
    ['an offset as the client zone', variant(2, 'Client time zone for this request: +08:00.')],
    ['a capitalised missing', variant(2, 'Client time zone for this request: Missing.')],
    ['mixed with one zone', variant(2, 'Client time zone for this request: mixed ["Asia/Shanghai"].')],
    ['mixed unsorted', variant(2, 'Client time zone for this request: mixed ["Asia/Shanghai","America/New_York"].')],
    ['mixed with a duplicate', variant(2, 'Client time zone for this request: mixed ["Asia/Shanghai","Asia/Shanghai"].')],
    ['mixed with spaces in the list', variant(2, 'Client time zone for this request: mixed ["America/New_York", "Asia/Shanghai"].')],
    ['mixed with a non-string', variant(2, 'Client time zone for this request: mixed ["America/New_York",1].')],
    ['mixed with broken JSON', variant(2, 'Client time zone for this request: mixed ["America/New_York",.')],
    ['mixed with an invalid zone shape', variant(2, 'Client time zone for this request: mixed ["EST","UTC"].')],
    ['another baseline label', variant(3, 'Elapsed since the preceding request: 1s.')],
    ['a duration with zero units', variant(3, 'Elapsed since the preceding model-visible message: 0h 1s.')],
    ['a duration without seconds', variant(3, 'Elapsed since the preceding model-visible message: 1m.')],
    ['a duration over 59 seconds', variant(3, 'Elapsed since the preceding model-visible message: 60s.')],
    ['a duration over 23 hours', variant(3, 'Elapsed since the preceding model-visible message: 24h 0s.')],
    ['a padded duration', variant(3, 'Elapsed since the preceding model-visible message: 01s.')],
    ['a capitalised unavailable elapsed', variant(3, 'Elapsed since the preceding model-visible message: Unavailable.')],
  ])('rejects %s', (_name, text) => {
    expect(parseReadingText(text)).toBeNull()
  })
})

describe('readReadingText', () => {
  const line1 = (turn: string, step: string): string =>
    variant(0, `Time sampled while preparing turn ${turn}, step ${step}: 2026-07-15T09:01:01+08:00[Asia/Shanghai]`)

  it('gives the fields of a valid reading', () => {
    expect(readReadingText(resolvedText)).toEqual({ ok: true, fields: resolved })
    expect(readReadingText(line1('9007199254740991', '1'))).toEqual({ ok: true, fields: { ...resolved, turn: 9007199254740991, step: 1 } })
  })

  it.each([
    ['turn 0', '0', '1'],
    ['step 0', '3', '0'],
    ['a leading zero turn', '01', '1'],
    ['a leading zero step', '3', '007'],
    ['turn 00', '00', '1'],
    ['turn 2^53', '9007199254740992', '1'],
    ['turn 2^53 + 1 (rounds to a safe-looking 2^53)', '9007199254740993', '1'],
    ['a seventeen-digit step', '3', '99999999999999999'],
    ['a hundred-digit turn', '9'.repeat(100), '1'],
  ])('classifies %s as a turn/step failure, not a format failure', (_name, turn, step) => {
    expect(readReadingText(line1(turn, step))).toEqual({ ok: false, failure: 'integers' })
    expect(parseReadingText(line1(turn, step))).toBeNull()
  })

  it.each([
    ['a negative step', line1('3', '-1')],
    ['a signed turn', line1('+3', '1')],
    ['a fractional turn', line1('3.0', '1')],
    ['an exponent', line1('1e3', '1')],
    ['no digits', line1('', '1')],
    ['three lines', resolvedText.split('\n').slice(0, 3).join('\n')],
  ])('classifies %s as a format failure', (_name, text) => {
    expect(readReadingText(text)).toEqual({ ok: false, failure: 'format' })
  })

  it('reports the format before the turn and step', () => {
    const bad = line1('01', '1').replace('Session time zone: Asia/Shanghai.', 'Session time zone: CST.')
    expect(readReadingText(bad)).toEqual({ ok: false, failure: 'format' })
  })
})

describe('readReadingText on a reading read before', () => {
  it('answers the same frozen fields, for mixed client zones too, so no reader can change what another is given', () => {
    const first = readReadingText(mixedText)
    expect(first).toEqual({ ok: true, fields: mixed })
    expect(readReadingText(mixedText)).toBe(first)
    if (!first.ok || first.fields.client.kind !== 'mixed') throw new Error('not a mixed reading')
    expect([Object.isFrozen(first), Object.isFrozen(first.fields), Object.isFrozen(first.fields.client), Object.isFrozen(first.fields.client.timeZones)]).toEqual([true, true, true, true])
  })
})
