import { expect, test } from './support/fixtures.ts'
import { createSessionFromUi, localClock, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { expectAccessible } from './support/axe.ts'
import { fetchSchedules, readSessionFile, scheduleChanges } from './support/log.ts'

const wallClock = (iso: string, zone: string, options: Intl.DateTimeFormatOptions): string =>
  new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', ...options }).format(new Date(iso))
/** A day as the overlay names it (en-US): a day word or weekday within a week, else a short date. */
const DAY = '(today|tomorrow|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|[A-Z][a-z]{2}, [A-Z][a-z]{2} \\d{1,2},)'
const shown = (iso: string, zone: string): RegExp => new RegExp(`^${DAY} ${localClock(iso, zone, 'en-US')}$`)

test('a weekday reminder made in a Berlin browser shows its rule in words and its next occurrences in Berlin and in a New York browser’s time', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(berlin)
  await sendMessage(berlin, 'remind me every weekday at 08:30 to check email')
  await waitForTurnEnds(server.url, id, 1)

  const [view] = await fetchSchedules(server.url, id)
  expect(view).toMatchObject({ id: 'schedule-1', kind: 'calendar', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', timeZone: 'Europe/Berlin', catchUp: 'latest' })
  const upcoming = view.upcoming as string[]
  expect(upcoming).toHaveLength(5)
  for (const at of upcoming) {
    expect(wallClock(at, 'Europe/Berlin', { hour: '2-digit', minute: '2-digit' })).toBe('08:30')
    expect(['Sat', 'Sun']).not.toContain(wallClock(at, 'Europe/Berlin', { weekday: 'short' }))
  }
  const { events } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(events)).toEqual([{ version: 1, operation: 'create', schedule: expect.objectContaining({ kind: 'calendar', timeZone: 'Europe/Berlin', rrule: view.rrule }) }])

  const answer = berlin.getByTestId('message-assistant')
  await expect(answer).toContainText('Done: reminder schedule-1 "check email" is set for weekdays at 08:30 in Berlin; the next is ')
  await expect(answer).not.toContainText('.000Z')

  const reminder = berlin.getByTestId('reminder')
  // the panel writes the rule's time as this browser's locale does (en-US), the assistant as the model was told it
  await expect(reminder.getByTestId('reminder-rule')).toHaveText('Weekdays at 8:30 AM · Berlin · schedule-1')
  // however narrow the card, the id is never broken ("schedule-" and "1" on two lines read as two things)
  const idLines = await reminder.getByTestId('reminder-rule').evaluate((rule) => {
    ;(rule as HTMLElement).style.width = '8ch'
    const lines = new Set([...(rule.querySelector('.reminder-id')?.getClientRects() ?? [])].map((box) => Math.round(box.top))).size
    ;(rule as HTMLElement).style.width = ''
    return lines
  })
  expect(idLines).toBe(1)
  // the next occurrences are folded under one line until asked for
  const berlinOccurrences = reminder.getByTestId('reminder-occurrence')
  await expect(berlinOccurrences.first()).toBeHidden()
  await reminder.getByText('Next 5 occurrences').click()
  await expect(berlinOccurrences).toHaveCount(5)
  await expect(berlinOccurrences.last()).toBeVisible()
  for (const [i, at] of upcoming.entries()) await expect(berlinOccurrences.nth(i)).toHaveText(shown(at, 'Europe/Berlin'))
  await expect(reminder.getByTestId('reminder-history')).toHaveText('Not delivered yet')
  await berlin.getByRole('region', { name: 'Reminders' }).screenshot({ path: testInfo.outputPath('calendar-reminder-berlin.png') })

  const newYork = await zones.open('America/New_York', berlin.url())
  const nyReminder = newYork.getByTestId('reminder')
  await expect(nyReminder.getByTestId('reminder-rule')).toHaveText('Weekdays at 8:30 AM · Berlin · schedule-1')
  const london = await zones.open('Europe/London', berlin.url(), { locale: 'en-GB' })
  await expect(london.getByTestId('reminder').getByTestId('reminder-rule')).toHaveText('Weekdays at 08:30 · Berlin · schedule-1')
  const nyOccurrences = nyReminder.getByTestId('reminder-occurrence')
  await nyReminder.getByText('Next 5 occurrences').click()
  await expect(nyOccurrences).toHaveCount(5)
  for (const [i, at] of upcoming.entries()) {
    const own = shown(at, 'Europe/Berlin').source.slice(1, -1)
    const browser = shown(at, 'America/New_York').source.slice(1, -1)
    await expect(nyOccurrences.nth(i)).toHaveText(new RegExp(`^${own} \\(${browser} · New York\\)$`))
  }
  await expect(nyReminder.getByTestId('reminder-own-time')).toHaveText(new RegExp(`^${shown(upcoming[0], 'Europe/Berlin').source.slice(1, -1)} · Berlin$`))
  await expect(nyReminder.getByTestId('reminder-browser-time')).toHaveText(new RegExp(`^${shown(upcoming[0], 'America/New_York').source.slice(1, -1)} · New York, this browser$`))
  await newYork.getByRole('region', { name: 'Reminders' }).screenshot({ path: testInfo.outputPath('calendar-reminder-new-york.png') })
})

test('the reminder form edits a weekday reminder in its own days and time, keeps a monthly rule it has no fields for, and makes a weekly one', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(berlin)
  await sendMessage(berlin, 'remind me every weekday at 08:30 to check email')
  await waitForTurnEnds(server.url, id, 1)
  await sendMessage(berlin, 'remind me on the 1st of every month at 9 to pay rent')
  await waitForTurnEnds(server.url, id, 2)
  const row = (scheduleId: string) => berlin.locator(`[data-testid="reminder"][data-schedule-id="${scheduleId}"]`)
  const form = berlin.getByTestId('reminder-form')
  const days = form.getByTestId('reminder-days')
  const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

  // a weekday reminder opens in its days and time, and a new prompt leaves its rule as it was
  await row('schedule-1').getByTestId('reminder-edit').click()
  await expect(form.getByTestId('reminder-kind')).toHaveValue('weekly')
  await expect(form.getByTestId('reminder-time')).toHaveValue('08:30')
  for (const [i, day] of DAYS.entries()) {
    const box = days.getByRole('checkbox', { name: day })
    if (i < 5) await expect(box).toBeChecked()
    else await expect(box).not.toBeChecked()
  }
  await expectAccessible(berlin, testInfo, 'weekly-reminder-form')
  await form.getByTestId('reminder-prompt').fill('check email and chat')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  await expect(row('schedule-1').getByTestId('reminder-rule')).toHaveText('Weekdays at 8:30 AM · Berlin · schedule-1')

  // a monthly reminder keeps its rule: the form offers it as set, with nothing to pick but the zone
  await expect(row('schedule-2').getByTestId('reminder-rule')).toHaveText('Monthly on the 1st at 9:00 AM · Berlin · schedule-2')
  await row('schedule-2').getByTestId('reminder-edit').click()
  await expect(form.getByTestId('reminder-kind')).toHaveValue('rule')
  await expect(form.getByTestId('reminder-kind').locator('option:checked')).toHaveText('As set: Monthly on the 1st at 9:00 AM')
  await expect(form.getByTestId('reminder-rule-kept')).toHaveText('Its rule stays as it is; ask the assistant to change it.')
  await expect(form.getByTestId('reminder-time')).toHaveCount(0)
  await form.getByTestId('reminder-prompt').fill('pay the rent')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)

  // a weekly reminder made in the form repeats on the days picked, in the zone picked
  await berlin.getByTestId('reminder-new').click()
  await form.getByTestId('reminder-prompt').fill('go running')
  await form.getByTestId('reminder-kind').selectOption('weekly')
  for (const day of DAYS) await days.getByRole('checkbox', { name: day }).setChecked(day === 'Tuesday' || day === 'Thursday')
  await form.getByTestId('reminder-time').fill('18:00')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  await expect(row('schedule-3')).toBeVisible()

  const views = await fetchSchedules(server.url, id)
  expect(views.map((v) => [v.id, v.kind, v.prompt, v.rrule, v.timeZone])).toEqual([
    ['schedule-1', 'calendar', 'check email and chat', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', 'Europe/Berlin'],
    ['schedule-2', 'calendar', 'pay the rent', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0', 'Europe/Berlin'],
    ['schedule-3', 'calendar', 'go running', 'FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=18;BYMINUTE=0', 'Europe/Berlin'],
  ])
  const { events } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(events).map((c) => [c.operation, (c.schedule as { id: string }).id])).toEqual([
    ['create', 'schedule-1'],
    ['create', 'schedule-2'],
    ['update', 'schedule-1'],
    ['update', 'schedule-2'],
    ['create', 'schedule-3'],
  ])
})

test('the reminder form says in this browser’s words when a one-off time has passed or a clock change skips it, sends nothing then, and says so when only the server’s clock has passed it; of a time the clocks repeat it says which of the two, and an edit keeps the second', async ({
  zones,
  servers,
}) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York')
  // this device's clock is held still (at the real time), so "now" in the words is known
  const realNow = Date.now()
  await page.clock.setFixedTime(realNow)
  await page.goto(server.url)
  const id = await createSessionFromUi(page)
  const form = page.getByTestId('reminder-form')
  const alert = form.getByRole('alert')
  const nyDate = (ms: number) => wallClock(new Date(ms).toISOString(), 'America/New_York', { year: 'numeric', month: '2-digit', day: '2-digit' }).replace(/(\d+)\/(\d+)\/(\d+)/, '$3-$1-$2')
  const nyTime = (ms: number) => wallClock(new Date(ms).toISOString(), 'America/New_York', { hour: '2-digit', minute: '2-digit' })
  const fill = async (date: string, time: string) => {
    await form.getByTestId('reminder-date').fill(date)
    await form.getByTestId('reminder-time').fill(time)
    await form.getByTestId('reminder-save').click()
  }
  await page.getByTestId('reminder-new').click()
  await form.getByTestId('reminder-prompt').fill('water the plants')

  // yesterday at 09:00 in New York has passed
  await fill(nyDate(realNow - 86_400_000), '09:00')
  await expect(alert).toHaveText(`Yesterday 9:00 AM has already passed in New York (it is ${localClock(realNow, 'America/New_York', 'en-US')} there now). Pick a later time.`)
  // 02:30 on the night the clocks go forward does not exist
  await fill('2027-03-14', '02:30')
  await expect(alert).toHaveText('2:30 AM on Sunday, March 14, 2027 does not exist in New York: the clocks skip that time. Pick another time.')
  expect(await fetchSchedules(server.url, id)).toEqual([])

  // this device's clock three hours behind: an hour ahead on it is two hours ago on the server's
  const behind = realNow - 3 * 3_600_000
  await page.clock.setFixedTime(behind)
  const target = behind + 3_600_000
  await fill(nyDate(target), nyTime(target))
  const day = nyDate(target) === nyDate(behind) ? 'Today' : 'Tomorrow'
  await expect(alert).toHaveText(
    `Not saved: ${day} ${localClock(target - (target % 60_000), 'America/New_York', 'en-US')} has already passed in New York by the server's clock (this device's clock may be behind). Pick a later time.`,
  )
  expect(await fetchSchedules(server.url, id)).toEqual([])
  // a changed time clears the refusal, and a time ahead on both clocks is made
  await form.getByTestId('reminder-date').fill(nyDate(realNow + 86_400_000))
  await expect(alert).toHaveCount(0)
  await form.getByTestId('reminder-time').fill('09:00')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  expect((await fetchSchedules(server.url, id)).map((s) => s.prompt)).toEqual(['water the plants'])

  // 01:30 on the night the clocks go back comes twice: the form says so beside the time, and the reminder is the first
  await page.getByTestId('reminder-new').click()
  await form.getByTestId('reminder-prompt').fill('check the boiler')
  await form.getByTestId('reminder-date').fill('2027-11-07')
  await form.getByTestId('reminder-time').fill('01:30')
  const note = '1:30 AM on Sunday, November 7, 2027 comes twice in New York, as the clocks go back: this reminder is for the first, before they do.'
  await expect(form.getByTestId('reminder-when-note')).toHaveText(note)
  await expect(form.getByTestId('reminder-time')).toHaveAccessibleDescription(note)
  await form.getByTestId('reminder-time').fill('02:30')
  await expect(form.getByTestId('reminder-when-note')).toHaveCount(0)
  await form.getByTestId('reminder-time').fill('01:30')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const made = (await fetchSchedules(server.url, id)).find((s) => s.prompt === 'check the boiler')
  expect(made?.scheduledAt).toBe('2027-11-07T05:30:00.000Z')

  // a reminder already on the second 01:30 (made from an instant) is said to be for the second, and stays there when its words change
  const posted = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'reset the thermostat', at: '2027-11-07T06:30:00Z' }),
  })
  expect(posted.status).toBe(201)
  const { schedule } = (await posted.json()) as { schedule: { id: string } }
  const reminder = page.locator(`[data-testid="reminder"][data-schedule-id="${schedule.id}"]`)
  await reminder.getByTestId('reminder-edit').click()
  await expect(form.getByTestId('reminder-time')).toHaveValue('01:30')
  const second = '1:30 AM on Sunday, November 7, 2027 comes twice in New York, as the clocks go back: this reminder is for the second, after they do.'
  await expect(form.getByTestId('reminder-when-note')).toHaveText(second)
  await expect(form.getByTestId('reminder-time')).toHaveAccessibleDescription(second)
  await form.getByTestId('reminder-prompt').fill('reset the thermostat to 18')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const kept = (await fetchSchedules(server.url, id)).find((s) => s.id === schedule.id)
  expect([kept?.prompt, kept?.scheduledAt, kept?.scheduledAtLocal]).toEqual(['reset the thermostat to 18', '2027-11-07T06:30:00.000Z', '2027-11-07T01:30:00-05:00[America/New_York]'])
})

test('the reminder form says of a daily or weekly time the next days the clocks skip or repeat it in its zone, and nothing when the reminder does not come those days', async ({ zones, servers }) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  await createSessionFromUi(berlin)
  const form = berlin.getByTestId('reminder-form')
  const note = form.getByTestId('reminder-when-note')
  // Berlin's clocks go forward at 01:00 UTC on the last Sunday of March and back at 01:00 UTC on the last Sunday of October
  const lastSunday = (year: number, month: number) => {
    const last = new Date(Date.UTC(year, month, 0))
    return new Date(Date.UTC(year, month - 1, last.getUTCDate() - last.getUTCDay()))
  }
  const next = (month: number, atUtc: number) => {
    const year = new Date().getUTCFullYear()
    return [year, year + 1].map((y) => lastSunday(y, month)).find((day) => day.getTime() + atUtc > Date.now()) as Date
  }
  const words = (day: Date) => `2:30 AM on ${new Intl.DateTimeFormat('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' }).format(day)}`
  // the skipped 02:30 comes at 03:30 CEST (01:30 UTC); the first of the repeated ones is 00:30 UTC
  const spring = next(3, 5_400_000)
  const autumn = next(10, 1_800_000)
  const notes = [
    { day: spring, text: `${words(spring)} does not exist in Berlin: the clocks skip it, so that day this reminder comes at 3:30 AM.` },
    { day: autumn, text: `${words(autumn)} comes twice in Berlin, as the clocks go back: that day this reminder is for the first, before they do.` },
  ]
  const expected = notes
    .sort((a, b) => a.day.getTime() - b.day.getTime())
    .map((n) => n.text)
    .join(' ')

  await berlin.getByTestId('reminder-new').click()
  await form.getByTestId('reminder-prompt').fill('take the pills')
  await form.getByTestId('reminder-kind').selectOption('daily')
  await form.getByTestId('reminder-time').fill('02:30')
  await expect(note).toHaveText(expected)
  await expect(form.getByTestId('reminder-time')).toHaveAccessibleDescription(expected)
  // weekly on Mondays does not come on a Sunday of a change; with Sundays it does
  await form.getByTestId('reminder-kind').selectOption('weekly')
  const days = form.getByTestId('reminder-days')
  for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']) await days.getByRole('checkbox', { name: day }).setChecked(day === 'Monday')
  await expect(note).toHaveCount(0)
  await days.getByRole('checkbox', { name: 'Sunday' }).check()
  await expect(note).toHaveText(expected)
  // a time that comes once every day says nothing
  await form.getByTestId('reminder-time').fill('09:00')
  await expect(note).toHaveCount(0)
  await expect(form.getByTestId('reminder-time')).not.toHaveAttribute('aria-describedby')
})

test('a weekly reminder that starts months from now says from when, and a new time from the form keeps its start', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url)
  const id = await createSessionFromUi(page)
  const startMs = Date.now() + 100 * 86_400_000
  const starts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(startMs)
  const [year, month, day] = starts.split('-').map(Number)
  const from = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', year: 'numeric', month: 'long', day: 'numeric' }).format(Date.UTC(year, month - 1, day))
  const posted = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'gym', rrule: 'FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=7;BYMINUTE=0', time_zone: 'America/New_York', starts, catch_up: 'all' }),
  })
  expect(posted.status).toBe(201)
  const reminder = page.getByTestId('reminder')
  // on the code before, "Every Monday and Wednesday at 7:00 AM · New York", as if it ran already
  await expect(reminder.getByTestId('reminder-rule')).toHaveText(new RegExp(`^Every Monday and Wednesday at 7:00 AM, from ${from} · New York · schedule-1$`))
  await reminder.getByTestId('reminder-edit').click()
  const form = page.getByTestId('reminder-form')
  await form.getByTestId('reminder-time').fill('07:30')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const [kept] = await fetchSchedules(server.url, id)
  // on the code before, the new time started the series today
  expect([kept.rrule, kept.starts]).toEqual(['FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=7;BYMINUTE=30', starts])
  await expect(reminder.getByTestId('reminder-rule')).toHaveText(new RegExp(`^Every Monday and Wednesday at 7:30 AM, from ${from} · New York · schedule-1$`))
})
