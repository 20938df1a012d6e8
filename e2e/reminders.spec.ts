import { expect, test } from './support/fixtures.ts'
import type { SessionEvent } from '../src/protocol/events.ts'
import { PHONE, clientZoneOf, createSessionFromUi, expectZone, localClock, readingCards, sendMessage, waitForTurnEnds, wallClockAhead } from './support/browser.ts'
import { assistantTexts, fetchSchedules, readSessionFile, scheduleChanges } from './support/log.ts'
import { expectAccessible } from './support/axe.ts'

function toolEvents(events: readonly SessionEvent[], name: string) {
  const calls = events.filter((event): event is SessionEvent<'tool/call'> => event.type === 'tool/call' && event.data.name === name)
  return calls.map((call) => {
    const result = events.find(
      (event): event is SessionEvent<'tool/result'> => event.type === 'tool/result' && event.data.callId === call.data.callId,
    )
    return {
      arguments: JSON.parse(call.data.arguments) as Record<string, unknown>,
      result: result === undefined ? undefined : (JSON.parse(result.data.content[0].text) as Record<string, unknown>),
      isError: result?.data.isError === true,
    }
  })
}

function wallClockIn(zone: string, iso: string): string {
  return new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(
    new Date(iso),
  )
}

test('a local time from a browser in the Session zone becomes a reminder without a zone question', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(berlin)
  await expectZone(berlin.getByTestId('session-zone'), 'Europe/Berlin', 'Berlin')
  await expect(berlin.getByTestId('zone-disagreement')).toHaveCount(0)

  const at = wallClockAhead('Europe/Berlin', 2)
  await sendMessage(berlin, `remind me at ${at} to stretch`)
  const events = await waitForTurnEnds(server.url, id, 1)

  const reminder = berlin.getByTestId('reminder')
  await expect(reminder).toHaveCount(1)
  await expect(reminder).toHaveAttribute('data-schedule-id', 'schedule-1')
  await expect(reminder).toHaveAttribute('data-state', 'scheduled')
  await expect(reminder).toContainText('stretch')
  const [hour, minute] = at.split(':').map(Number)
  const clock = `${hour % 12 === 0 ? 12 : hour % 12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}`
  await expect(reminder.getByTestId('reminder-own-time')).toHaveText(new RegExp(`^(today|tomorrow) ${clock} · Berlin$`))
  await expect(reminder.getByTestId('reminder-browser-time')).toHaveCount(0)
  await expect(berlin.getByTestId('reminder-countdown')).toHaveText(/^in [0-2]:[0-5]\d$/)
  const answer = berlin.getByTestId('message-assistant')
  await expect(answer).toContainText('Done: reminder schedule-1 "stretch"')
  await expect(answer).not.toContainText('Which time zone')
  await expect(await clientZoneOf(readingCards(berlin).first())).toHaveText('Europe/Berlin')
  await berlin.screenshot({ path: testInfo.outputPath('reminders-panel.png') })
  await berlin.getByRole('region', { name: 'Reminders' }).screenshot({ path: testInfo.outputPath('reminders-panel-only.png') })

  const [create] = toolEvents(events, 'schedule_create')
  expect(create.arguments).toEqual({ prompt: 'stretch', at: { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), time: `${at}:00` } })
  expect(create.isError).toBe(false)
  const { events: onDisk } = await readSessionFile(server.dataDir, id)
  const changes = scheduleChanges(onDisk)
  expect(changes).toEqual([
    { version: 1, operation: 'create', schedule: { id: 'schedule-1', kind: 'at', prompt: 'stretch', scheduledAt: expect.any(String), timeZone: 'Europe/Berlin' } },
  ])
  const scheduledAt = (changes[0].schedule as { scheduledAt: string }).scheduledAt
  expect(wallClockIn('Europe/Berlin', scheduledAt)).toBe(`${at}:00`)
  expect(Date.parse(scheduledAt)).toBeGreaterThan(Date.now())
  expect(await fetchSchedules(server.url, id)).toEqual([
    expect.objectContaining({ id: 'schedule-1', prompt: 'stretch', scheduledAt, state: 'scheduled', deliveryMode: 'session-local' }),
  ])
})

test('a local time from a browser in another zone makes the assistant ask which zone is meant', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(berlin)
  const newYork = await zones.open('America/New_York', berlin.url())
  await expect(newYork.getByTestId('zone-disagreement')).toBeVisible()

  const at = wallClockAhead('Europe/Berlin', 2)
  await sendMessage(newYork, `remind me at ${at} to stretch`)
  const events = await waitForTurnEnds(server.url, id, 1)

  for (const page of [newYork, berlin]) {
    const answer = page.getByTestId('message-assistant')
    await expect(answer).toHaveCount(1)
    await expect(answer).toContainText('Which time zone do you mean')
    await expect(answer).toContainText('Europe/Berlin')
    await expect(answer).toContainText('America/New_York')
    await expect(page.getByTestId('reminder')).toHaveCount(0)
    await expect(page.getByRole('region', { name: 'Reminders' })).toContainText('No active reminders')
  }
  await expect(await clientZoneOf(readingCards(newYork).first())).toHaveText('America/New_York')
  await expect(newYork.getByTestId('tool-call')).toHaveAttribute('data-outcome', 'question')
  await expect(newYork.getByTestId('tool-call')).toContainText('asked you')
  await expect(newYork.getByTestId('tool-call')).not.toContainText('error')
  await newYork.screenshot({ path: testInfo.outputPath('zone-question.png') })

  const [create] = toolEvents(events, 'schedule_create')
  expect(create.arguments).toMatchObject({ prompt: 'stretch', at: { time: `${at}:00` } })
  expect(create.result).toMatchObject({
    code: 'timezone_confirmation_required',
    sessionTimeZone: 'Europe/Berlin',
    clientTimeZones: ['America/New_York'],
  })
  const { events: onDisk } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(onDisk)).toEqual([])
  expect(assistantTexts(onDisk)).toEqual([expect.stringContaining('Which time zone do you mean')])
  expect(await fetchSchedules(server.url, id)).toEqual([])
})

test('naming the zone in reply to the question sets the reminder in that zone, for both browsers', async ({ zones, servers }) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(berlin)
  const newYork = await zones.open('America/New_York', berlin.url())
  const at = wallClockAhead('Europe/Berlin', 120)
  await sendMessage(newYork, `remind me at ${at} to stretch`)
  await waitForTurnEnds(server.url, id, 1)
  await sendMessage(newYork, 'Berlin')
  await waitForTurnEnds(server.url, id, 2)
  const [view] = await fetchSchedules(server.url, id)
  expect(view).toMatchObject({ id: 'schedule-1', kind: 'at', prompt: 'stretch', timeZone: 'Europe/Berlin' })
  expect(wallClockIn('Europe/Berlin', view.scheduledAt as string)).toBe(`${at}:00`)
  for (const page of [newYork, berlin]) {
    await expect(page.getByTestId('message-assistant').last()).toContainText('Done: reminder schedule-1 "stretch" is set for ')
    await expect(page.getByTestId('message-assistant').last()).toContainText(` at ${at} in Berlin.`)
    await expect(page.getByTestId('reminder')).toHaveCount(1)
  }
})

test('a deleted reminder can be made again with Undo: the same words and times, in its own zone, once', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  const post = (body: unknown) => fetch(`${server.url}/api/sessions/${id}/schedules`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const tomorrow = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(Date.now() + 2 * 86_400_000)
  expect((await post({ prompt: 'call the New York office', at: { date: tomorrow, time: '09:00:00', time_zone: 'America/New_York' } })).status).toBe(201)
  expect((await post({ prompt: 'stand up', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30', time_zone: 'Europe/Berlin' })).status).toBe(201)
  await page.reload()
  await expect(page.getByTestId('reminder')).toHaveCount(2)
  const before = await fetchSchedules(server.url, id)

  for (const [index, prompt] of ['call the New York office', 'stand up'].entries()) {
    await page.getByRole('button', { name: `Delete reminder: ${prompt}` }).click()
    const notice = page.getByTestId('reminder-deleted')
    await expect(notice).toHaveText(`Deleted “${prompt}”.UndoDismiss`)
    await expect(page.getByTestId('reminder')).toHaveCount(1)
    if (index === 0) await expectAccessible(page, testInfo, 'reminder-deleted')
    await expect(notice.getByTestId('reminder-undo')).toBeFocused()
    // in the deleted reminder's place, first in the list both times (the one made again by Undo comes last)
    await expect(page.locator('.reminder-list > li').first()).toHaveAttribute('class', 'reminder-deleted-row')
    await notice.getByTestId('reminder-undo').click()
    await expect(notice).toHaveCount(0)
    await expect(page.getByTestId('reminder')).toHaveCount(2)
    // focus stays with the reminder made again
    await expect(page.getByRole('button', { name: `Edit reminder: ${prompt}` })).toBeFocused()
  }
  const after = await fetchSchedules(server.url, id)
  const same = (view: Record<string, unknown>) => [view.kind, view.prompt, view.scheduledAt, view.scheduledAtLocal, view.timeZone, view.rrule ?? null]
  expect(after.map(same)).toEqual(before.map(same))
  expect(after.map((view) => view.id).sort()).toEqual(['schedule-3', 'schedule-4'])
  const { events } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(events).map((change) => change.operation)).toEqual(['create', 'create', 'delete', 'create', 'delete', 'create'])
})

test('on a phone, deleting the last of many reminders brings Undo into view with focus, and a second Enter restores it instead of deleting another', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('Europe/Berlin', server.url, { viewport: PHONE })
  const id = await createSessionFromUi(page)
  for (let i = 1; i <= 8; i++) {
    const response = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: `stretch ${i}`, after_seconds: 3600 * i }),
    })
    expect(response.status).toBe(201)
  }
  await page.reload()
  await page.getByTestId('reminders-toggle').click()
  await expect(page.getByTestId('reminder')).toHaveCount(8)
  const last = page.getByRole('button', { name: 'Delete reminder: stretch 8' })
  await last.scrollIntoViewIfNeeded()
  await last.focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('reminder')).toHaveCount(7)
  const undo = page.getByTestId('reminder-deleted').getByTestId('reminder-undo')
  await expect(undo).toBeFocused()
  await expect(undo).toBeInViewport()
  // the notice stands where the deleted reminder stood: focus stays in place (SPEC 9)
  await expect(page.locator('.reminder-list > li').last()).toHaveText('Deleted “stretch 8”.UndoDismiss')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('reminder')).toHaveCount(8)
  await expect(page.getByRole('button', { name: 'Edit reminder: stretch 8' })).toBeFocused()
  expect((await fetchSchedules(server.url, id)).map((view) => view.prompt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `stretch ${i}`))

  // a word longer than the screen is wide wraps inside the notice, as it does on the reminder's card
  const long = `Ruf ${'Donaudampfschifffahrtsgesellschaftskapitän'.repeat(3)} an`
  const posted = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: long, after_seconds: 3600 * 9 }),
  })
  expect(posted.status).toBe(201)
  const card = page.locator('[data-testid="reminder"]', { hasText: 'Donaudampf' })
  await card.getByTestId('reminder-delete').click()
  const notice = page.getByTestId('reminder-deleted')
  await expect(notice).toContainText(`Deleted “${long}”.`)
  const overflow = await notice.evaluate((box) => [box.scrollWidth - box.clientWidth, Math.round(box.getBoundingClientRect().right), window.innerWidth])
  expect(overflow[0]).toBe(0)
  expect(overflow[1]).toBeLessThanOrEqual(overflow[2])
})

test('editing only the words of a reminder due in a while keeps it due when it was; another length counts from the save', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url)
  const id = await createSessionFromUi(page)
  const posted = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'drink water', after_seconds: 600 }),
  })
  expect(posted.status).toBe(201)
  const { schedule } = (await posted.json()) as { schedule: { id: string; scheduledAt: string } }
  const reminder = page.locator(`[data-testid="reminder"][data-schedule-id="${schedule.id}"]`)
  const form = page.getByTestId('reminder-form')
  await reminder.getByTestId('reminder-edit').click()
  await expect(form.getByTestId('reminder-amount')).toHaveValue('10')
  const due = new RegExp(`^Due (today|tomorrow) ${localClock(schedule.scheduledAt, 'America/New_York', 'en-US')}\\. Another length counts from when you save\\.$`)
  await expect(form.getByTestId('reminder-length-note')).toHaveText(due)
  await expect(form.getByTestId('reminder-amount')).toHaveAccessibleDescription(due)
  await form.getByTestId('reminder-prompt').fill('drink a glass of water')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const [kept] = await fetchSchedules(server.url, id)
  // on the code before, the save sent the length again and the reminder was due ten minutes after the save
  expect([kept.prompt, kept.scheduledAt]).toEqual(['drink a glass of water', schedule.scheduledAt])

  await reminder.getByTestId('reminder-edit').click()
  await form.getByTestId('reminder-amount').fill('20')
  await expect(form.getByTestId('reminder-length-note')).toHaveText('Its length counts from when you save.')
  const saved = Date.now()
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const [longer] = await fetchSchedules(server.url, id)
  expect(Date.parse(longer.scheduledAt as string) - saved).toBeGreaterThanOrEqual(20 * 60_000 - 1_000)
  expect(Date.parse(longer.scheduledAt as string) - Date.now()).toBeLessThanOrEqual(20 * 60_000)
})

test('a reminder deleted in another browser while it is edited here is said to be gone, and what was typed can be made a new reminder', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url)
  const id = await createSessionFromUi(page)
  const api = `${server.url}/api/sessions/${id}/schedules`
  const posted = await fetch(api, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'pay the rent', rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0', time_zone: 'America/New_York' }),
  })
  expect(posted.status).toBe(201)
  const { schedule } = (await posted.json()) as { schedule: { id: string } }
  const form = page.getByTestId('reminder-form')
  await page.locator(`[data-testid="reminder"][data-schedule-id="${schedule.id}"]`).getByTestId('reminder-edit').click()
  await form.getByTestId('reminder-prompt').fill('pay the rent and the phone bill')
  await expect(form.getByTestId('reminder-gone')).toHaveCount(0)
  await expect(form.getByTestId('reminder-save')).toHaveText('Save changes')

  expect((await fetch(`${api}/${schedule.id}`, { method: 'DELETE' })).status).toBe(200)
  await expect(page.getByTestId('reminder')).toHaveCount(0)
  await expect(form.getByTestId('reminder-gone')).toHaveText(
    '“pay the rent” is no longer active: it was deleted, or it came due. Nothing here was saved; you can create it again as a new reminder.',
  )
  await expect(form.getByTestId('reminder-prompt')).toHaveValue('pay the rent and the phone bill')
  await expect(form.getByTestId('reminder-save')).toHaveText('Create as new reminder')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  const [made] = await fetchSchedules(server.url, id)
  expect([made.prompt, made.rrule, made.timeZone]).toEqual(['pay the rent and the phone bill', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=9;BYMINUTE=0', 'America/New_York'])
  expect(made.id).not.toBe(schedule.id)
  const row = page.locator(`[data-testid="reminder"][data-schedule-id="${made.id as string}"]`)
  await expect(row.getByTestId('reminder-edit')).toBeFocused()

  // deleted here while its form is open, the form goes with it
  await row.getByTestId('reminder-edit').click()
  await expect(form).toHaveCount(1)
  await row.getByTestId('reminder-delete').click()
  await expect(page.getByTestId('reminder-deleted')).toBeVisible()
  await expect(form).toHaveCount(0)
})

test('keyboard: leaving a reminder’s form returns to its row, Dismiss after a delete keeps the place, and this browser’s zone keeps focus in the form', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url)
  const id = await createSessionFromUi(page)
  for (const prompt of ['first', 'second', 'third']) {
    const response = await fetch(`${server.url}/api/sessions/${id}/schedules`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, after_seconds: 3_600 }),
    })
    expect(response.status).toBe(201)
  }
  const row = (n: number) => page.getByTestId('reminder').nth(n)
  await expect(page.getByTestId('reminder')).toHaveCount(3)
  const form = page.getByTestId('reminder-form')
  // on the code before, Escape and Cancel sent focus to "New reminder" at the top
  await row(1).getByTestId('reminder-edit').click()
  await page.keyboard.press('Escape')
  await expect(form).toHaveCount(0)
  await expect(row(1).getByTestId('reminder-edit')).toBeFocused()
  await row(2).getByTestId('reminder-edit').click()
  await form.getByRole('button', { name: 'Cancel' }).click()
  await expect(row(2).getByTestId('reminder-edit')).toBeFocused()

  // Dismiss after deleting the second: focus on the reminder now in its place (on the code before, "New reminder")
  await row(1).getByTestId('reminder-delete').click()
  await page.getByTestId('reminder-deleted').getByTestId('reminder-dismiss').click()
  await expect(page.getByTestId('reminder')).toHaveCount(2)
  await expect(row(1).getByTestId('reminder-edit')).toBeFocused()
  await expect(row(1)).toContainText('third')

  // in a Tokyo Session, this browser's zone is one button away; it goes once picked, and focus stays in the form
  const tokyo = await (await fetch(`${server.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timeZone: 'Asia/Tokyo' }) })).json() as { session: { id: string } }
  await page.goto(`${server.url}/s/${tokyo.session.id}`)
  await page.getByTestId('reminder-new').click()
  await page.getByTestId('reminder-zone-browser').click()
  await expect(page.getByTestId('reminder-zone-browser')).toHaveCount(0)
  await expect(form.getByTestId('reminder-zone')).toBeFocused()
  await expect(form.getByTestId('reminder-zone')).toHaveValue('America/New_York')
  await page.keyboard.press('Escape')
  await expect(form).toHaveCount(0)
  await expect(page.getByTestId('reminder-new')).toBeFocused()
})

test('a new reminder’s date and time stay an hour from now in the zone picked, until the person sets them', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url)
  await createSessionFromUi(page)
  await page.getByTestId('reminder-new').click()
  const form = page.getByTestId('reminder-form')
  const wallIn = (zone: string) => {
    const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(Date.now() + 3_600_000)
    const get = (type: string) => parts.find((part) => part.type === type)?.value ?? ''
    return { date: `${get('year')}-${get('month')}-${get('day')}`, time: `${get('hour')}:${get('minute')}` }
  }
  const when = async () => ({ date: await form.getByTestId('reminder-date').inputValue(), time: await form.getByTestId('reminder-time').inputValue() })
  const near = (shown: { date: string; time: string }, zone: string) => {
    const expected = wallIn(zone)
    const minutes = (w: { date: string; time: string }) => Date.parse(`${w.date}T${w.time}:00Z`) / 60_000
    // rounded up to the next five minutes
    const ahead = minutes(shown) - minutes(expected)
    return ahead >= -1 && ahead <= 6
  }
  expect(near(await when(), 'America/New_York')).toBe(true)
  // on the code before, Tokyo kept New York's wall time: "… has already passed in Tokyo", or hours away
  await form.getByTestId('reminder-zone').selectOption('Asia/Tokyo')
  expect(near(await when(), 'Asia/Tokyo')).toBe(true)
  await form.getByTestId('reminder-prompt').fill('call Kenji')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  await expect(page.getByTestId('reminder')).toContainText('call Kenji')

  // once the person sets the time, another zone keeps it
  await page.getByTestId('reminder-new').click()
  // a time other than the one the form offers (at 22:40 in New York it offers 23:45, and filling that changes nothing)
  const set = (await when()).time === '23:45' ? '23:40' : '23:45'
  await form.getByTestId('reminder-time').fill(set)
  const date = await form.getByTestId('reminder-date').inputValue()
  await form.getByTestId('reminder-zone').selectOption('Europe/London')
  expect(await when()).toEqual({ date, time: set })
})

test('screen readers hear which reminder a button acts on, in names kept short, and a long reminder takes four lines of the list', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('America/New_York', server.url, { viewport: PHONE })
  const id = await createSessionFromUi(page)
  const api = `${server.url}/api/sessions/${id}/schedules`
  const long = `water the plants ${'and the ferns '.repeat(140)}`.trim()
  const make = async (prompt: string, after: number) => {
    const response = await fetch(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, after_seconds: after }) })
    expect(response.status).toBe(201)
  }
  await make(long, 3_600)
  await page.getByTestId('reminders-toggle').click()
  const row = page.locator('[data-testid="reminder"]').filter({ hasText: 'water the plants' })
  // on the code before, names of over 2,000 characters, and a row some 1,300 px tall
  await expect(row.getByTestId('reminder-edit')).toHaveAccessibleName(`Edit reminder: ${long.slice(0, 79).trimEnd()}…`)
  await expect(row.getByTestId('reminder-delete')).toHaveAccessibleName(`Delete reminder: ${long.slice(0, 79).trimEnd()}…`)
  const lines = await row.locator('.reminder-prompt').evaluate((node) => node.getBoundingClientRect().height / parseFloat(getComputedStyle(node).lineHeight))
  expect(Math.round(lines)).toBe(4)
  await page.getByTestId('reminders-drawer').getByRole('button', { name: 'Close' }).click()

  // the due card's and the toast's buttons are described by their reminder (on the code before, "Snooze 10 min" alone);
  // on a desktop window, where the toast of the Session open shows beside its card (a phone shows the card alone)
  await page.setViewportSize({ width: 1280, height: 860 })
  await make('drink water', 2)
  const due = page.getByTestId('reminder-due')
  await expect(due).toBeVisible({ timeout: 20_000 })
  await expect(due.getByTestId('reminder-snooze')).toHaveAccessibleDescription('drink water')
  await expect(due.getByTestId('reminder-done')).toHaveAccessibleDescription('drink water')
  const toast = page.getByRole('listitem', { name: 'drink water' })
  await expect(toast).toHaveAttribute('data-testid', 'toast')
  await expect(toast.getByTestId('reminder-snooze')).toHaveAccessibleDescription('drink water')
  await expect(toast.getByTestId('toast-dismiss')).toHaveAccessibleDescription('drink water')
})
