import { describe, expect, it } from 'vitest'
import { describeRrule } from '../../src/protocol/rule-words.ts'
import { parseRrule } from '../../src/protocol/rrule.ts'
import { currentZoneName, zonePlace } from '../../src/protocol/zone-place.ts'

describe('parseRrule', () => {
  it('parses the subset with 09:00 as the default time of day', () => {
    expect(parseRrule('FREQ=WEEKLY;BYDAY=MO')).toEqual({
      ok: true,
      rule: { freq: 'WEEKLY', interval: 1, byDay: [{ weekday: 'MO', ordinal: null }], byMonthDay: null, byMonth: null, byHour: [9], byMinute: [0], bySetPos: null, wkst: null, end: { kind: 'never' } },
    })
    expect(parseRrule('FREQ=MONTHLY;INTERVAL=2;BYDAY=1MO,-1FR;BYHOUR=18,8;BYMINUTE=30;COUNT=4;WKST=SU')).toEqual({
      ok: true,
      rule: {
        freq: 'MONTHLY',
        interval: 2,
        byDay: [{ weekday: 'MO', ordinal: 1 }, { weekday: 'FR', ordinal: -1 }],
        byMonthDay: null,
        byMonth: null,
        byHour: [8, 18],
        byMinute: [30],
        bySetPos: null,
        wkst: 'SU',
        end: { kind: 'count', count: 4 },
      },
    })
    expect(parseRrule('FREQ=DAILY;UNTIL=20261231T235959Z')).toMatchObject({ ok: true, rule: { end: { kind: 'until-instant', epochMs: Date.parse('2026-12-31T23:59:59Z') } } })
    expect(parseRrule('FREQ=DAILY;UNTIL=20261231')).toMatchObject({ ok: true, rule: { end: { kind: 'until-date', year: 2026, month: 12, day: 31 } } })
  })

  it.each([
    ['RRULE:FREQ=DAILY', 'rrule takes the RRULE value without the "RRULE:" prefix'],
    ['', 'rrule must be a non-empty RRULE value of at most 500 characters'],
    ['BYHOUR=9', 'rrule needs FREQ'],
    ['FREQ=HOURLY', 'FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY, got "HOURLY"'],
    ['FREQ=daily', 'FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY, got "daily"'],
    ['FREQ=DAILY;BYSECOND=0', 'rrule part "BYSECOND" is not supported; use FREQ, INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYHOUR, BYMINUTE, BYSETPOS, COUNT, UNTIL, WKST'],
    ['FREQ=DAILY;FREQ=WEEKLY', 'rrule names FREQ more than once'],
    ['FREQ=DAILY;INTERVAL=0', 'INTERVAL must be an integer from 1 to 9999, got "0"'],
    ['FREQ=DAILY;BYHOUR=24', 'BYHOUR must be a comma-separated list of hours 0 to 23, got "24"'],
    ['FREQ=DAILY;BYMINUTE=5,', 'BYMINUTE must be a comma-separated list of minutes 0 to 59, got "5,"'],
    ['FREQ=WEEKLY;BYDAY=1MO', 'BYDAY ordinals such as "1MO" need FREQ=MONTHLY or FREQ=YEARLY'],
    ['FREQ=MONTHLY;BYDAY=6MO', 'a BYDAY ordinal with FREQ=MONTHLY must be from 1 to 5 or -5 to -1, got "6MO"'],
    ['FREQ=MONTHLY;BYDAY=XX', 'BYDAY must list weekdays MO..SU, optionally with an ordinal such as 1MO or -1FR, got "XX"'],
    ['FREQ=WEEKLY;BYMONTHDAY=1', 'BYMONTHDAY cannot be used with FREQ=WEEKLY'],
    ['FREQ=MONTHLY;BYMONTHDAY=0', 'BYMONTHDAY must be a comma-separated list of days 1 to 31 or -31 to -1, got "0"'],
    ['FREQ=MONTHLY;BYDAY=1MO;BYMONTHDAY=1', 'BYDAY with an ordinal cannot be combined with BYMONTHDAY'],
    ['FREQ=YEARLY;BYMONTH=13', 'BYMONTH must be a comma-separated list of months 1 to 12, got "13"'],
    ['FREQ=MONTHLY;BYSETPOS=1', 'BYSETPOS needs another BY rule part to select from'],
    ['FREQ=DAILY;COUNT=2;UNTIL=20270101', 'rrule cannot have both COUNT and UNTIL'],
    ['FREQ=DAILY;UNTIL=20270230', 'UNTIL must name a real calendar date, got "20270230"'],
    ['FREQ=DAILY;UNTIL=20270101T120000', 'UNTIL must be a date YYYYMMDD or a UTC date-time YYYYMMDDTHHMMSSZ, got "20270101T120000"'],
    ['FREQ=DAILY;WKST=XX', 'WKST must be one of MO, TU, WE, TH, FR, SA, SU, got "XX"'],
    ['FREQ=DAILY;BYHOUR', 'rrule part BYHOUR needs a value'],
    ['FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYSETPOS=30', 'BYSETPOS=30 can never select an occurrence: each day of this rule holds at most 24 candidate times'],
    ['FREQ=DAILY;BYHOUR=9;BYSETPOS=2', 'BYSETPOS=2 can never select an occurrence: each day of this rule holds at most 1 candidate time'],
    ['FREQ=DAILY;BYHOUR=9;BYSETPOS=-2,3', 'BYSETPOS=-2,3 can never select an occurrence: each day of this rule holds at most 1 candidate time'],
    ['FREQ=WEEKLY;BYDAY=MO,TU;BYHOUR=9,17;BYSETPOS=-5', 'BYSETPOS=-5 can never select an occurrence: each week of this rule holds at most 4 candidate times'],
    ['FREQ=MONTHLY;BYDAY=MO;BYSETPOS=6', 'BYSETPOS=6 can never select an occurrence: each month of this rule holds at most 5 candidate times'],
    ['FREQ=MONTHLY;BYMONTHDAY=1,15;BYDAY=MO;BYSETPOS=3', 'BYSETPOS=3 can never select an occurrence: each month of this rule holds at most 2 candidate times'],
    ['FREQ=YEARLY;BYMONTH=2;BYDAY=1MO,-1MO;BYSETPOS=3', 'BYSETPOS=3 can never select an occurrence: each year of this rule holds at most 2 candidate times'],
    ['FREQ=YEARLY;BYMONTHDAY=1;BYSETPOS=13', 'BYSETPOS=13 can never select an occurrence: each year of this rule holds at most 12 candidate times'],
    ['FREQ=YEARLY;BYMONTH=1;BYDAY=53MO', 'BYDAY=53MO can never select a day: with BYMONTH, a BYDAY ordinal counts within the month, and a month holds at most 5 of each weekday'],
    ['FREQ=YEARLY;BYMONTH=3,9;BYDAY=6SU,-6SU', 'BYDAY=6SU,-6SU can never select a day: with BYMONTH, a BYDAY ordinal counts within the month, and a month holds at most 5 of each weekday'],
    ['FREQ=YEARLY;BYMONTH=1;BYDAY=1MO,10MO;BYSETPOS=2', 'BYSETPOS=2 can never select an occurrence: each year of this rule holds at most 1 candidate time'],
  ])('refuses %j', (rrule, reason) => {
    expect(parseRrule(rrule)).toEqual({ ok: false, reason })
  })

  it.each([
    'FREQ=DAILY;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;BYSETPOS=24',
    'FREQ=DAILY;BYHOUR=9;BYSETPOS=1,2',
    'FREQ=WEEKLY;BYDAY=MO,TU;BYHOUR=9,17;BYSETPOS=-4',
    'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=5',
    'FREQ=MONTHLY;BYDAY=MO,-1FR;BYSETPOS=6',
    'FREQ=YEARLY;BYDAY=MO;BYSETPOS=53',
    'FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=31;BYHOUR=9,21;BYSETPOS=-4',
    'FREQ=YEARLY;BYMONTHDAY=-1;BYSETPOS=12',
  ])('keeps %j, whose BYSETPOS can select in some period', (rrule) => {
    expect(parseRrule(rrule)).toMatchObject({ ok: true })
  })

  it.each([
    'FREQ=YEARLY;BYMONTH=1;BYDAY=5MO',
    'FREQ=YEARLY;BYMONTH=2;BYDAY=-5MO',
    'FREQ=YEARLY;BYMONTH=1;BYDAY=53MO,1MO',
    'FREQ=YEARLY;BYMONTH=1;BYDAY=53MO,MO',
    'FREQ=YEARLY;BYDAY=53MO',
  ])('keeps %j, whose BYDAY can select a day in some year', (rrule) => {
    expect(parseRrule(rrule)).toMatchObject({ ok: true })
  })
})

describe('describeRrule', () => {
  it.each([
    ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', 'Weekdays at 08:30'],
    ['FREQ=DAILY', 'Every day at 09:00'],
    ['FREQ=WEEKLY;BYDAY=MO;BYHOUR=10', 'Every Monday at 10:00'],
    ['FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10', 'Weekends at 10:00'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE', 'Every 2 weeks on Monday and Wednesday at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=1', 'Monthly on the 1st at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=18', 'Monthly on the last day at 18:00'],
    ['FREQ=MONTHLY;BYDAY=-1FR', 'Monthly on the last Friday at 09:00'],
    ['FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', 'Monthly on the last weekday at 09:00'],
    ['FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;BYHOUR=2', 'Yearly on the last Sunday in March at 02:00'],
    ['FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3;BYHOUR=10', 'Yearly on 3 March at 10:00'],
    ['FREQ=YEARLY;INTERVAL=2;BYMONTH=5;BYMONTHDAY=1', 'Every 2 years on 1 May at 09:00'],
    ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=-1', 'Yearly on the last day in February at 09:00'],
    ['FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1', 'Yearly on the 1st in January and July at 09:00'],
    ['FREQ=DAILY;BYHOUR=8,20;COUNT=4', 'Every day at 08:00 and 20:00, 4 times'],
    ['FREQ=DAILY;UNTIL=20261231', 'Every day at 09:00, until 2026-12-31'],
  ])('describes %j', (rrule, words) => {
    expect(describeRrule(rrule, '2026-07-15')).toBe(words)
  })

  // RFC 5545: a part the rule leaves out is the series start's (a Tuesday, 15 December)
  it.each([
    ['FREQ=MONTHLY', 'Monthly on the 15th at 09:00'],
    ['FREQ=WEEKLY', 'Every Tuesday at 09:00'],
    ['FREQ=YEARLY', 'Yearly on 15 December at 09:00'],
    ['FREQ=WEEKLY;INTERVAL=2;BYHOUR=18', 'Every 2 weeks on Tuesday at 18:00'],
    ['FREQ=MONTHLY;INTERVAL=3;COUNT=4', 'Every 3 months on the 15th at 09:00, 4 times'],
    ['FREQ=MONTHLY;BYMONTH=1,7', 'Monthly on the 15th in January and July at 09:00'],
    ['FREQ=YEARLY;BYMONTH=3', 'Yearly on 15 March at 09:00'],
    ['FREQ=YEARLY;BYMONTH=3,9', 'Yearly on the 15th in March and September at 09:00'],
    ['FREQ=WEEKLY;BYMONTH=3', 'Every Tuesday in March at 09:00'],
    ['FREQ=DAILY', 'Every day at 09:00'],
  ])('says the day of %j from the start 2026-12-15', (rrule, words) => {
    expect(describeRrule(rrule, '2026-12-15')).toBe(words)
  })

  // each period's BYSETPOS picks, said as the days and times they are; the series starts on Tuesday 15 December
  it.each([
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1', 'Every Monday at 09:00'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=-1', 'Every Friday at 09:00'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1,2', 'Every Monday and Wednesday at 09:00'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1,2,3', 'Every Monday, Wednesday and Friday at 09:00'],
    ['FREQ=WEEKLY;BYDAY=SU,MO;BYSETPOS=1', 'Every Monday at 09:00'],
    ['FREQ=WEEKLY;WKST=SU;BYDAY=SU,MO;BYSETPOS=1', 'Every Sunday at 09:00'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;BYSETPOS=-1;COUNT=3', 'Every 2 weeks on Thursday at 09:00, 3 times'],
    ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA;BYSETPOS=1,2,3,4,5', 'Weekdays at 09:00'],
    ['FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8,20;BYSETPOS=1,2', 'Every Monday at 08:00 and 20:00'],
    ['FREQ=WEEKLY;BYSETPOS=1;BYHOUR=8,20', 'Every Tuesday at 08:00'],
    ['FREQ=DAILY;BYHOUR=8,20;BYSETPOS=-1', 'Every day at 20:00'],
    ['FREQ=DAILY;BYDAY=MO,WE;BYSETPOS=1', 'Every Monday and Wednesday at 09:00'],
    ['FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=8,20;BYSETPOS=1', 'Monthly on the 1st at 08:00'],
    ['FREQ=MONTHLY;BYHOUR=8,20;BYSETPOS=-1', 'Monthly on the 15th at 20:00'],
    ['FREQ=YEARLY;BYHOUR=8,20;BYSETPOS=1', 'Yearly on 15 December at 08:00'],
    ['FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1,-1', 'Monthly on the first and last weekday at 09:00'],
  ])('says what the BYSETPOS of %j picks', (rrule, words) => {
    expect(describeRrule(rrule, '2026-12-15')).toBe(words)
  })

  // picks that differ from one period to the next have no plain words: the caller shows the rule itself
  it.each([
    'FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8,20;BYSETPOS=1,-1',
    'FREQ=WEEKLY;BYMONTH=3;BYDAY=MO,WE,FR;BYSETPOS=1',
    'FREQ=DAILY;BYHOUR=8,20;BYSETPOS=3',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8,20;BYSETPOS=-1',
    'FREQ=YEARLY;BYMONTH=1,7;BYSETPOS=1',
    'FREQ=YEARLY;BYMONTH=1,7;BYMONTHDAY=1,15;BYSETPOS=-1',
  ])('has no words for the BYSETPOS of %j', (rrule) => {
    expect(describeRrule(rrule, '2026-12-15')).toBeNull()
  })

  // on the code before, "Every day at 09:00": the days BYMONTHDAY keeps were left out
  it.each([
    ['FREQ=DAILY;BYMONTHDAY=1', 'Monthly on the 1st at 09:00'],
    ['FREQ=DAILY;BYMONTHDAY=1,15;BYDAY=MO', 'Monthly on the 1st and the 15th that is a Monday at 09:00'],
    ['FREQ=DAILY;BYMONTHDAY=-1;BYMONTH=2;BYHOUR=8,20;BYSETPOS=-1', 'Monthly on the last day in February at 20:00'],
  ])('says the days BYMONTHDAY keeps of a daily rule %j', (rrule, words) => {
    expect(describeRrule(rrule, '2026-12-15')).toBe(words)
  })

  // RFC 5545: a yearly rule's days with no month fall in every month (or week); on the code before, "Yearly on the 1st"
  it.each([
    ['FREQ=YEARLY;BYMONTHDAY=1', 'Monthly on the 1st at 09:00'],
    ['FREQ=YEARLY;BYMONTHDAY=1,-1;COUNT=3', 'Monthly on the 1st and the last day at 09:00, 3 times'],
    ['FREQ=YEARLY;BYMONTHDAY=13;BYDAY=FR', 'Monthly on the 13th that is a Friday at 09:00'],
    ['FREQ=YEARLY;BYDAY=MO', 'Every Monday at 09:00'],
    ['FREQ=YEARLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', 'Weekdays at 08:30'],
    ['FREQ=YEARLY;BYDAY=1MO', 'Yearly on the first Monday at 09:00'],
    ['FREQ=YEARLY;BYDAY=-1FR;BYHOUR=17', 'Yearly on the last Friday at 17:00'],
  ])('says a yearly rule with days and no month as what it is, %j', (rrule, words) => {
    expect(describeRrule(rrule, '2026-12-15')).toBe(words)
  })

  it.each([
    'FREQ=YEARLY;INTERVAL=2;BYMONTHDAY=1',
    'FREQ=YEARLY;INTERVAL=3;BYDAY=MO',
    'FREQ=YEARLY;BYMONTHDAY=1,15;BYSETPOS=1',
    'FREQ=YEARLY;BYMONTHDAY=1;BYDAY=1MO',
    // on the code before, "Yearly on the first Monday and Tuesday" and "Monthly on the first Monday and Tuesday":
    // every Tuesday is in them too
    'FREQ=YEARLY;BYDAY=1MO,TU',
    'FREQ=MONTHLY;BYDAY=1MO,TU',
    'FREQ=MONTHLY;BYDAY=-1FR,SA,SU',
  ])(
    'has no words for %j, whose days no plain words say (every few years, year-wide picks, a nth weekday beside plain ones)',
    (rrule) => {
      expect(describeRrule(rrule, '2026-12-15')).toBeNull()
    },
  )

  it('has no words for every few days that fall on a day of the month', () => {
    expect(describeRrule('FREQ=DAILY;INTERVAL=2;BYMONTHDAY=1', '2026-12-15')).toBeNull()
  })

  it('says nothing of a rule whose start is not a date', () => {
    expect(describeRrule('FREQ=MONTHLY', '2026-02-30')).toBeNull()
    expect(describeRrule('FREQ=MONTHLY', 'soon')).toBeNull()
  })
})

describe('zonePlace', () => {
  it.each([
    ['Europe/Berlin', 'Berlin'],
    ['America/New_York', 'New York'],
    ['Asia/Kolkata', 'Kolkata'],
    ['Asia/Calcutta', 'Kolkata'],
    ['Europe/Kiev', 'Kyiv'],
    ['Asia/Saigon', 'Ho Chi Minh'],
    ['US/Eastern', 'New York'],
    ['America/Indianapolis', 'Indianapolis'],
    ['America/Argentina/Buenos_Aires', 'Buenos Aires'],
    ['Pacific/Chatham', 'Chatham'],
    ['Australia/Lord_Howe', 'Lord Howe'],
    ['UTC', 'UTC'],
    ['Etc/UTC', 'UTC'],
    // folded into another place's zone, not renamed
    ['America/Coral_Harbour', 'Coral Harbour'],
    ['Pacific/Ponape', 'Ponape'],
  ])('names %s as %s', (zone, place) => {
    expect(zonePlace(zone)).toBe(place)
  })

  it('maps legacy links to today’s zone from the zone database', () => {
    expect(currentZoneName('Asia/Calcutta')).toBe('Asia/Kolkata')
    expect(currentZoneName('Europe/Kiev')).toBe('Europe/Kyiv')
    expect(currentZoneName('Asia/Saigon')).toBe('Asia/Ho_Chi_Minh')
    expect(currentZoneName('America/Detroit')).toBe('America/Detroit')
  })

  it('gives every zone of this runtime a place of its own', () => {
    const places = new Map<string, string[]>()
    for (const zone of Intl.supportedValuesOf('timeZone')) places.set(zonePlace(zone), [...(places.get(zonePlace(zone)) ?? []), zone])
    expect([...places].filter(([, zones]) => zones.length > 1)).toEqual([])
  })
})
