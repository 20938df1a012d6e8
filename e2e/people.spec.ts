import { expect, test } from './support/fixtures.ts'
import { createSessionFromUi, expectZone, localClock, PHONE, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { fetchSchedules, personMessages, readSessionFile, scheduleChanges } from './support/log.ts'
import { dueSoonScript } from './support/server.ts'

const GERMAN_FULL = /^(Montag|Dienstag|Mittwoch|Donnerstag|Freitag|Samstag|Sonntag), \d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4} um \d{2}:\d{2}:\d{2} /

test('a de-DE browser in Kolkata reads its 24-hour clock and “Kolkata”, with English day words as the sentences around them are (the full date in German); an en-US browser reads a 12-hour clock', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const kolkata = await zones.open('Asia/Kolkata', server.url, { locale: 'de-DE' })
  const canonical = await kolkata.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
  expect(canonical).toMatch(/^Asia\/(Kolkata|Calcutta)$/)
  await expectZone(kolkata.getByTestId('browser-zone'), canonical, 'Kolkata')
  const id = await createSessionFromUi(kolkata)
  await expectZone(kolkata.getByTestId('session-zone'), canonical, 'Kolkata')
  await sendMessage(kolkata, 'remind me in 10 minutes to stretch')
  await waitForTurnEnds(server.url, id, 1)

  const own = kolkata.getByTestId('reminder-own-time')
  // on the code before, "heute 14:07" beside English words, and "Gestern …" in English sentences
  await expect(own).toHaveText(/^(today|tomorrow) \d{2}:\d{2} · Kolkata$/)
  await expect(own).toHaveAttribute('title', GERMAN_FULL)
  await expect(kolkata.getByTestId('reminder-countdown')).toHaveText(/^in (10:00|9:[0-5]\d)$/)
  await expect(kolkata.getByTestId('reminder-rule')).toHaveText('Once, 10 min after it was set · schedule-1')
  await expect(kolkata.getByTestId('message-user').locator('.stamp')).toHaveText(/^\d{2}:\d{2}$/)
  await expect(kolkata.getByTestId('message-user').locator('.msg-author')).toHaveText('You')
  await expect(kolkata.getByTestId('reading-chip')).toHaveText(/^Time \d{2}:\d{2} · Kolkata · from Kolkata$/)
  expect(await kolkata.locator('body').innerText()).not.toContain('Calcutta')
  await kolkata.screenshot({ path: testInfo.outputPath('de-DE-kolkata.png') })

  const newYork = await zones.open('America/New_York', kolkata.url(), { locale: 'en-US' })
  await expectZone(newYork.getByTestId('session-zone'), canonical, 'Kolkata')
  await expect(newYork.getByTestId('reminder-own-time')).toHaveText(/^(today|tomorrow) \d{1,2}:\d{2} (AM|PM) · Kolkata$/)
  await expect(newYork.getByTestId('reminder-browser-time')).toHaveText(/^(yesterday|today|tomorrow) \d{1,2}:\d{2} (AM|PM) · New York, this browser$/)
  // beside the place it came from, a message's time is that place's
  await expect(newYork.getByTestId('message-user').locator('.msg-author')).toHaveText('Kolkata')
  const [sent] = personMessages((await readSessionFile(server.dataDir, id)).events)
  await expect(newYork.getByTestId('message-user').locator('.stamp')).toHaveText(localClock(sent.time, 'Asia/Kolkata', 'en-US'))
  // and after it this browser's, the clock the assistant's reply below is stamped on
  const here = localClock(sent.time, 'America/New_York', 'en-US')
  await expect(newYork.getByTestId('message-user').getByTestId('stamp-here')).toHaveText(new RegExp(`^\\((yesterday |tomorrow )?${here} here\\)$`))
  await expect(kolkata.getByTestId('stamp-here')).toHaveCount(0)
  await newYork.screenshot({ path: testInfo.outputPath('en-US-new-york.png') })
})

test('a reminder made from the form with an explicit zone shows both zones; notification permission is asked then, never on load', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const berlin = await zones.open('Europe/Berlin', server.url)
  await berlin.context().addInitScript(() => {
    const counted = window as unknown as { permissionAsks: number }
    counted.permissionAsks = 0
    Notification.requestPermission = () => {
      counted.permissionAsks += 1
      return Promise.resolve('default')
    }
  })
  await berlin.reload()
  const id = await createSessionFromUi(berlin)
  const asks = () => berlin.evaluate(() => (window as unknown as { permissionAsks: number }).permissionAsks)
  expect(await asks()).toBe(0)

  await berlin.getByTestId('reminder-new').click()
  const form = berlin.getByTestId('reminder-form')
  await expect(form.getByTestId('reminder-zone')).toHaveValue('Europe/Berlin')
  await expect(form.getByTestId('reminder-zone-browser')).toHaveCount(0)
  // the list runs by region, then by the place each zone is shown as (Kolkata among the K's, though Chromium calls it Asia/Calcutta)
  const listed = await form.locator('[data-testid="reminder-zone"] optgroup option').evaluateAll((options) =>
    options.map((option) => ({ region: (option.textContent?.match(/, ([A-Za-z]+)\/[^)]*\)$/) ?? [])[1] ?? '', place: option.textContent?.split(' (')[0] ?? '' })),
  )
  expect(listed.length).toBeGreaterThan(300)
  const sorted = [...listed].sort((a, b) => (a.region === b.region ? a.place.localeCompare(b.place, 'en') : a.region < b.region ? -1 : 1))
  expect(listed.map((entry) => `${entry.region}/${entry.place}`)).toEqual(sorted.map((entry) => `${entry.region}/${entry.place}`))
  const asia = listed.filter((entry) => entry.region === 'Asia').map((entry) => entry.place)
  expect(asia.slice(asia.indexOf('Kolkata') - 1, asia.indexOf('Kolkata') + 2)).toEqual(['Khandyga', 'Kolkata', 'Krasnoyarsk'])
  await form.getByTestId('reminder-prompt').fill('call the New York office')
  const tomorrow = new Date(Date.now() + 86_400_000)
  const date = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' }).format(tomorrow)
  await form.getByTestId('reminder-date').fill(date)
  await form.getByTestId('reminder-time').fill('09:00')
  await form.getByTestId('reminder-zone').selectOption('America/New_York')
  await berlin.screenshot({ path: testInfo.outputPath('reminder-form.png') })
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  expect(await asks()).toBe(1)

  const reminder = berlin.getByTestId('reminder')
  await expect(reminder).toHaveAttribute('data-time-zone', 'America/New_York')
  await expect(reminder.getByTestId('reminder-own-time')).toHaveText(/^(tomorrow|[A-Z][a-z]+day) 9:00 AM · New York$/)
  // the same date is today in Berlin from Berlin's midnight until New York's: the day word is Berlin's own
  const berlinToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' }).format(Date.now())
  const days = Math.round((Date.parse(date) - Date.parse(berlinToday)) / 86_400_000)
  const inBerlin = days === 0 ? 'today' : days === 1 ? 'tomorrow' : new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' }).format(Date.parse(date))
  await expect(reminder.getByTestId('reminder-browser-time')).toHaveText(`${inBerlin} 3:00 PM · Berlin, this browser`)
  await berlin.screenshot({ path: testInfo.outputPath('reminder-explicit-zone.png') })

  const [view] = await fetchSchedules(server.url, id)
  expect(view).toMatchObject({ id: 'schedule-1', kind: 'at', prompt: 'call the New York office', timeZone: 'America/New_York', scheduledAtLocal: `${date}T09:00:00-05:00[America/New_York]` })
  const { events } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(events)).toEqual([
    { version: 1, operation: 'create', schedule: { id: 'schedule-1', kind: 'at', prompt: 'call the New York office', scheduledAt: view.scheduledAt, timeZone: 'America/New_York' } },
  ])

  await reminder.getByTestId('reminder-edit').click()
  const edit = berlin.getByTestId('reminder-form')
  await expect(edit.getByTestId('reminder-zone')).toHaveValue('America/New_York')
  await expect(edit.getByTestId('reminder-time')).toHaveValue('09:00')
  await edit.getByTestId('reminder-zone-browser').click()
  await expect(edit.getByTestId('reminder-zone')).toHaveValue('Europe/Berlin')
  await edit.getByTestId('reminder-time').fill('16:30')
  await edit.getByTestId('reminder-save').click()
  await expect(reminder.getByTestId('reminder-own-time')).toHaveText(`${inBerlin} 4:30 PM · Berlin`)
  await expect(reminder.getByTestId('reminder-browser-time')).toHaveCount(0)
  expect(await asks()).toBe(1)
  expect(await fetchSchedules(server.url, id)).toEqual([expect.objectContaining({ id: 'schedule-1', timeZone: 'Europe/Berlin', scheduledAtLocal: `${date}T16:30:00+01:00[Europe/Berlin]` })])
})

test('a reminder in Session A that comes due while Session B is open: toast, unread mark and tab badge; Snooze makes a new one 10 min later; Open goes to A', async ({
  zones,
  servers,
}, testInfo) => {
  const server = await servers.start({ script: dueSoonScript('Take the bread out', 4, 'I will remind you in 4 seconds.', 'Reminder: take the bread out.') })
  const page = await zones.open('Europe/Berlin', server.url)
  const a = await createSessionFromUi(page)
  await sendMessage(page, 'Remind me in 4 seconds to take the bread out')
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  await page.getByTestId('session-rename').click()
  await page.getByTestId('session-rename-input').fill('Baking')
  await page.keyboard.press('Enter')
  const b = await createSessionFromUi(page)
  expect(b).not.toBe(a)

  const toast = page.getByTestId('toast')
  await expect(toast).toHaveCount(1, { timeout: 20_000 })
  await expect(toast).toContainText('Reminder due · Baking')
  await expect(toast).toContainText('Take the bread out')
  await expect(toast).toContainText(/today \d{1,2}:\d{2} (AM|PM) · Berlin/)
  const itemA = page.locator(`[data-testid="session-item"][data-session-id="${a}"]`)
  await expect(itemA.getByTestId('unread-mark')).toHaveText(/^1/)
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${b}"]`).getByTestId('unread-mark')).toHaveCount(0)
  await expect(page).toHaveTitle(/^\(1\) /)
  await page.screenshot({ path: testInfo.outputPath('toast-unread-badge.png') })
  // the toast stands above the composer, never over Send — on a desktop window and on a phone
  const desktop = page.viewportSize()
  for (const size of [desktop, { width: 390, height: 844 }]) {
    if (size !== null) await page.setViewportSize(size)
    await expect.poll(async () => {
      const [over, under] = await Promise.all([toast.boundingBox(), page.locator('form.composer').boundingBox()])
      return over !== null && under !== null && over.y + over.height <= under.y
    }).toBe(true)
  }
  if (desktop !== null) await page.setViewportSize(desktop)

  const snoozedAt = Date.now()
  await toast.getByTestId('reminder-snooze').click()
  await expect(toast).toHaveCount(0)
  await expect.poll(async () => (await fetchSchedules(server.url, a)).length).toBe(1)
  const [snoozed] = await fetchSchedules(server.url, a)
  expect(snoozed).toMatchObject({ id: 'schedule-2', kind: 'after', prompt: 'Take the bread out', afterSeconds: 600, state: 'scheduled' })
  expect(Date.parse(snoozed.scheduledAt as string) - snoozedAt).toBeGreaterThan(590_000)
  expect(Date.parse(snoozed.scheduledAt as string) - snoozedAt).toBeLessThan(620_000)
  // the toast that did it is gone: what the Snooze made is read out, and focus is in the message box, not on <body>
  await expect(page.getByTestId('toast-said')).toHaveText(`Snoozed “Take the bread out”: again today ${localClock(snoozed.scheduledAt as string, 'Europe/Berlin', 'en-US')}.`)
  await expect(page.getByTestId('composer-input')).toBeFocused()

  await expect(itemA.getByTestId('unread-mark')).toHaveText(/^1/)
  // A's list answers late, so what the page shows first is what it held: the fired reminder is not in it
  let listed = 0
  await page.route(`**/api/sessions/${a}/schedules`, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    listed += 1
    await route.continue()
  })
  await itemA.click()
  await page.waitForURL(new RegExp(`/s/${a}$`))
  await expect(itemA.getByTestId('unread-mark')).toHaveCount(0)
  await expect(page).toHaveTitle('Baking · Schedule Web')
  const reminder = page.getByTestId('reminder')
  await expect(reminder).toHaveAttribute('data-schedule-id', 'schedule-2')
  await expect(reminder.getByTestId('reminder-countdown')).toHaveText(/^in (10:00|9:[0-5]\d)$/)
  await expect(page.getByTestId('reminder-due')).toContainText('Take the bread out')
  await expect(page.getByTestId('reminder-due').getByTestId('reminder-done')).toHaveCount(0)
  await expect.poll(() => listed).toBeGreaterThan(0)
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  await page.screenshot({ path: testInfo.outputPath('opened-after-snooze.png') })
})

test('with notifications allowed and the window in the background, a due reminder raises a system notification whose click opens its Session', async ({ zones, servers }) => {
  const server = await servers.start({ script: dueSoonScript('Water the plants', 3, 'Noted.', 'Reminder: water the plants.') })
  const page = await zones.open('Europe/Lisbon', server.url, { permissions: ['notifications'] })
  // the real Notification, recorded as it is constructed (Chromium shows nothing headless)
  await page.context().addInitScript(() => {
    const Real = window.Notification
    const seen = window as unknown as { raised: { title: string; body?: string; tag?: string }[]; lastRaised: Notification | null }
    seen.raised = []
    seen.lastRaised = null
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options)
        seen.raised.push({ title, body: options?.body, tag: options?.tag })
        seen.lastRaised = this
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission })
    window.Notification = Recorded as typeof Notification
  })
  await page.reload()
  expect(await page.evaluate(() => Notification.permission)).toBe('granted')
  const a = await createSessionFromUi(page)
  await sendMessage(page, 'Remind me in 3 seconds to water the plants')
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  const [{ scheduledAt }] = await fetchSchedules(server.url, a)
  const b = await createSessionFromUi(page)
  expect(b).not.toBe(a)
  // the person has switched to another window (headless pages always report focus)
  await page.evaluate(() => {
    document.hasFocus = () => false
  })

  const raised = () => page.evaluate(() => (window as unknown as { raised: unknown[] }).raised)
  await expect.poll(raised, { timeout: 20_000 }).toHaveLength(1)
  expect(await raised()).toEqual([{ title: 'Reminder: Water the plants', body: 'Schedule Web', tag: `${a}\u0000schedule-1\u0000${String(scheduledAt)}` }])
  await expect(page.getByTestId('toast')).toContainText('Water the plants')

  await page.evaluate(() => (window as unknown as { lastRaised: Notification }).lastRaised.dispatchEvent(new Event('click')))
  await page.waitForURL(new RegExp(`/s/${a}$`))
  await expect(page.getByTestId('reminder-due')).toContainText('Water the plants')
  expect(await raised()).toHaveLength(1)
})

/** What a snoozed due card says (en-US) of the reminder that replaced it, due at `scheduledAt`. */
function snoozedSaid(scheduledAt: string, zone: string): RegExp {
  const when = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(Date.parse(scheduledAt))
  return new RegExp(`^Snoozed: again (today|tomorrow) ${when.replace(/\s/g, '\\s')}\\.$`)
}

test('Snooze on the due card makes a new reminder 10 min later and the card keeps saying when, after a reload too', async ({ zones, servers }) => {
  const server = await servers.start({ script: dueSoonScript('Check the oven', 3, 'Noted.', 'Reminder: check the oven.') })
  const page = await zones.open('America/Sao_Paulo', server.url)
  const id = await createSessionFromUi(page)
  await sendMessage(page, 'Remind me in 3 seconds to check the oven')
  const card = page.getByTestId('reminder-due')
  await expect(card).toContainText('Check the oven', { timeout: 20_000 })
  const snoozedAt = Date.now()
  await card.getByTestId('reminder-snooze').click()
  await expect.poll(async () => (await fetchSchedules(server.url, id)).length).toBe(1)
  const [snoozed] = await fetchSchedules(server.url, id)
  expect(snoozed).toMatchObject({ id: 'schedule-2', kind: 'after', prompt: 'Check the oven', afterSeconds: 600, state: 'scheduled' })
  expect(Date.parse(snoozed.scheduledAt as string) - snoozedAt).toBeGreaterThan(590_000)
  const said = snoozedSaid(snoozed.scheduledAt as string, 'America/Sao_Paulo')
  await expect(card.getByRole('status')).toHaveText(said)
  // focus stays on the card, on what it now says (the Snooze button is gone)
  await expect(card.getByRole('status')).toBeFocused()
  await expect(card.getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(page.getByTestId('toast')).toHaveCount(0)

  await page.reload()
  await expect(page.getByTestId('reminder-due').getByRole('status')).toHaveText(said)
  await expect(page.getByTestId('reminder-due').getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(page.getByTestId('reminder-due').getByTestId('reminder-done')).toHaveCount(0)
})

test('a reminder snoozed in one tab is snoozed in the other tabs of the browser: their card says when and their Snooze is gone, so it is not snoozed twice', async ({
  zones,
  servers,
}) => {
  const server = await servers.start({ script: dueSoonScript('Check the oven', 3, 'Noted.', 'Reminder: check the oven.') })
  const first = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(first)
  // a second tab of the same browser on the same Session
  const second = await first.context().newPage()
  await second.goto(first.url())
  await sendMessage(first, 'Remind me in 3 seconds to check the oven')
  for (const page of [first, second]) await expect(page.getByTestId('reminder-due')).toContainText('Check the oven', { timeout: 20_000 })
  await expect(second.getByTestId('reminder-due').getByTestId('reminder-snooze')).toHaveCount(1)

  await first.getByTestId('reminder-due').getByTestId('reminder-snooze').click()
  await expect.poll(async () => (await fetchSchedules(server.url, id)).length).toBe(1)
  const [snoozed] = await fetchSchedules(server.url, id)
  const said = snoozedSaid(snoozed.scheduledAt as string, 'Europe/Berlin')
  for (const page of [first, second]) {
    const card = page.getByTestId('reminder-due')
    await expect(card.getByRole('status')).toHaveText(said)
    await expect(card.getByTestId('reminder-snooze')).toHaveCount(0)
    await expect(page.getByTestId('toast')).toHaveCount(0)
  }
  expect((await fetchSchedules(server.url, id)).map((s) => s.id)).toEqual(['schedule-2'])
})

test('a Snooze whose answer was lost is known from the log: its card says snoozed, and another browser neither offers nor makes a second snooze', async ({
  zones,
  servers,
}) => {
  const server = await servers.start({ script: dueSoonScript('Check the oven', 3, 'Noted.', 'Reminder: check the oven.') })
  const laptop = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(laptop)
  // another browser (its own storage: the laptop's marks never reach it) on the same Session, and one on no Session
  const phone = await zones.open('Europe/Berlin', laptop.url(), { viewport: PHONE })
  const desk = await zones.open('Europe/Berlin', server.url)
  await sendMessage(laptop, 'Remind me in 3 seconds to check the oven')
  await expect(laptop.getByTestId('reminder-due')).toContainText('Check the oven', { timeout: 20_000 })

  // the snooze reaches the server, which makes it; its answer never reaches the page
  let reached = 0
  await laptop.route('**/snooze', async (route) => {
    reached++
    await route.fetch()
    await route.abort('connectionreset')
  })
  const card = laptop.getByTestId('reminder-due')
  await card.getByTestId('reminder-snooze').click()
  await expect.poll(async () => (await fetchSchedules(server.url, id)).map((s) => s.id)).toEqual(['schedule-2'])
  const [snoozed] = await fetchSchedules(server.url, id)
  const said = snoozedSaid(snoozed.scheduledAt as string, 'Europe/Berlin')
  // the log says what the lost answer would have: the card is snoozed, not "not confirmed", and asks for nothing more
  await expect(card.getByRole('status')).toHaveText(said)
  await expect(card.getByRole('alert')).toHaveCount(0)
  await expect(card.getByTestId('reminder-snooze')).toHaveCount(0)
  expect(reached).toBe(1)

  // the phone, whose marks are its own, reads the same snooze from the log and offers no second one
  const phoneCard = phone.getByTestId('reminder-due')
  await expect(phoneCard.getByRole('status')).toHaveText(said)
  await expect(phoneCard.getByTestId('reminder-snooze')).toHaveCount(0)

  // a browser with no conversation to read it from offers Snooze on its toast; its answer lost too, it says so, and
  // snoozing again is answered with the snooze already made
  const toast = desk.getByTestId('toast').filter({ hasText: 'Check the oven' })
  await desk.route('**/snooze', async (route) => {
    await route.fetch()
    await route.abort('connectionreset')
  })
  await toast.getByTestId('reminder-snooze').click()
  await expect(toast.getByRole('alert')).toHaveText('Not confirmed: Cannot reach the server. Snooze it again; it will be snoozed once.')
  await desk.unroute('**/snooze')
  await toast.getByTestId('reminder-snooze').click()
  await expect(toast).toHaveCount(0)
  expect(await fetchSchedules(server.url, id)).toEqual([snoozed])
  const { events } = await readSessionFile(server.dataDir, id)
  expect(scheduleChanges(events).map((c) => c.operation)).toEqual(['create', 'dispatch', 'create'])
})

test('a reminder made from the form whose answer was lost is said to be unconfirmed, and creating it again makes it once', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('Asia/Tokyo', server.url)
  const id = await createSessionFromUi(page)
  await page.getByTestId('reminder-new').click()
  const form = page.getByTestId('reminder-form')
  await form.getByTestId('reminder-prompt').fill('water the plants')
  await form.getByTestId('reminder-kind').selectOption('after')
  await form.getByTestId('reminder-amount').fill('2')
  await form.getByTestId('reminder-unit').selectOption('h')
  let reached = 0
  await page.route('**/schedules', async (route) => {
    if (route.request().method() !== 'POST') return route.continue()
    reached++
    await route.fetch()
    await route.abort('connectionreset')
  })
  await form.getByTestId('reminder-save').click()
  await expect(form.getByRole('alert')).toHaveText('Not confirmed: Cannot reach the server. Create it again; it will not appear twice.')
  expect(reached).toBe(1)
  await page.unroute('**/schedules')
  await form.getByTestId('reminder-save').click()
  await expect(form).toHaveCount(0)
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  await expect(page.getByTestId('reminder')).toContainText('water the plants')
  expect((await fetchSchedules(server.url, id)).map((s) => [s.id, s.prompt, s.afterSeconds])).toEqual([['schedule-1', 'water the plants', 7200]])
})

test('Open on a toast goes to the Session; Done on the due card dismisses the notice', async ({ zones, servers }) => {
  const server = await servers.start({ script: dueSoonScript('Call Ana', 3, 'Noted.', 'Reminder: call Ana.') })
  const page = await zones.open('Asia/Shanghai', server.url)
  const a = await createSessionFromUi(page)
  await sendMessage(page, 'Remind me in 3 seconds to call Ana')
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  await createSessionFromUi(page)
  const toast = page.getByTestId('toast')
  await expect(toast).toContainText('Call Ana', { timeout: 20_000 })
  await toast.getByTestId('toast-open').press('Enter')
  await page.waitForURL(new RegExp(`/s/${a}$`))
  await expect(toast).toHaveCount(0)
  // focus goes to the opened Session's message box (on the code before, to <body> as the toast went)
  await expect(page.getByTestId('composer-input')).toBeFocused()
  await expect(page).not.toHaveTitle(/^\(/)
  const due = page.getByTestId('reminder-due')
  await expect(due).toContainText('Call Ana')
  await due.getByTestId('reminder-done').click()
  await expect(due).toContainText('Done.')
  await expect(due.getByTestId('reminder-snooze')).toHaveCount(0)
  // focus stays on what the card now says, not on <body> as its buttons go
  await expect(due.getByRole('status')).toHaveText('Done.')
  await expect(due.getByRole('status')).toBeFocused()
})

test('four reminders due at once: a phone shows the newest under the zones and counts the rest, a desktop three; Dismiss all closes them and the unread marks stay', async ({
  zones,
  servers,
}) => {
  const server = await servers.start()
  const api = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(response.status, `${method} ${path}`).toBeLessThan(300)
  }
  const names = ['Kitchen', 'Garden', 'Office', 'Car']
  for (const name of [...names, 'Here']) {
    await api('POST', '/api/sessions', { sessionId: name.toLowerCase(), timeZone: 'Europe/Berlin' })
    await api('PATCH', `/api/sessions/${name.toLowerCase()}`, { title: name })
  }
  const page = await zones.open('Europe/Berlin', `${server.url}/s/here`, { viewport: PHONE })
  await expect(page.getByTestId('session-title')).toHaveText('Here')
  // one second apart, so they come due in this order
  for (const [index, name] of names.entries()) await api('POST', `/api/sessions/${name.toLowerCase()}/schedules`, { prompt: `Reminder of ${name}`, after_seconds: 3 + index })

  const toast = page.getByTestId('toast')
  const more = page.getByTestId('toast-more')
  await expect(more).toHaveText('3 more reminders dueDismiss all', { timeout: 20_000 })
  await expect(toast).toHaveCount(1)
  // SPEC 9 (v2): a toast offers Open, Snooze 10 min and Dismiss
  await expect(toast.getByRole('button')).toHaveText(['Open', 'Snooze 10 min', 'Dismiss'])
  expect(await toast.evaluateAll((items) => items.map((item) => item.getAttribute('data-session-id')))).toEqual(['car'])
  await expect(page).toHaveTitle(/^\(4\) /)
  // the stack stands between the Session's top (its zones and banner) and the composer
  const [zonesBox, moreBox, lastBox, composerBox] = await Promise.all([
    page.locator('.session-top').boundingBox(),
    more.boundingBox(),
    toast.last().boundingBox(),
    page.locator('form.composer').boundingBox(),
  ])
  if (zonesBox === null || moreBox === null || lastBox === null || composerBox === null) throw new Error('not laid out')
  expect(moreBox.y).toBeGreaterThan(zonesBox.y + zonesBox.height)
  expect(lastBox.y + lastBox.height).toBeLessThanOrEqual(composerBox.y)

  await page.setViewportSize({ width: 1280, height: 860 })
  await expect(more).toHaveText('1 more reminder dueDismiss all')
  expect(await toast.evaluateAll((items) => items.map((item) => item.getAttribute('data-session-id')))).toEqual(['garden', 'office', 'car'])
  await toast.last().getByTestId('toast-dismiss').click()
  await expect(more).toHaveCount(0)
  expect(await toast.evaluateAll((items) => items.map((item) => item.getAttribute('data-session-id')))).toEqual(['kitchen', 'garden', 'office'])
  // focus goes on to the newest toast left, not to <body>
  await expect(toast.last().getByTestId('toast-open')).toBeFocused()

  await page.setViewportSize(PHONE)
  await expect(more).toHaveText('2 more reminders dueDismiss all')
  await more.getByTestId('toast-dismiss-all').click()
  await expect(toast).toHaveCount(0)
  await expect(more).toHaveCount(0)
  await expect(page.getByTestId('composer-input')).toBeFocused()
  await expect(page).toHaveTitle(/^\(4\) /)
})

test('the assistant confirms a reminder in a Chatham Session in Chatham’s words, not as a UTC instant', async ({ zones, servers }) => {
  const server = await servers.start()
  const chatham = await zones.open('Pacific/Chatham', server.url)
  const id = await createSessionFromUi(chatham)
  await sendMessage(chatham, 'remind me at 07:45 tomorrow to feed the cat')
  await waitForTurnEnds(server.url, id, 1)
  const answer = chatham.getByTestId('message-assistant')
  await expect(answer).toContainText('07:45')
  await expect(answer).toContainText('Chatham')
  await expect(answer).not.toContainText(/\d{2}:\d{2}:\d{2}(\.\d{3})?Z/)
  await expect(chatham.getByTestId('reminder-own-time')).toHaveText(/^tomorrow 7:45 AM · Chatham$/)
})

test('a browser whose clock runs 10 minutes ahead sees the device clock warning, and its countdowns follow the server’s clock', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/api/sessions', { sessionId: 'skewed', timeZone: 'Europe/Berlin' })).status).toBe(201)
  expect((await post('/api/sessions/skewed/schedules', { prompt: 'stretch', after_seconds: 1800 })).status).toBe(201)
  const page = await zones.open('Europe/Berlin')
  await page.clock.install({ time: Date.now() + 10 * 60_000 })
  await page.goto(`${server.url}/s/skewed`)
  const warning = page.getByTestId('clock-warning')
  await expect(warning).toHaveText(/^Your device clock is (9|10|11) min ahead of the server\./)
  // due in 30 minutes on the server's clock, not in 20 on this device's
  await expect(page.getByTestId('reminder-countdown')).toHaveText(/^in (30:00|29:[0-5]\d)$/)
  await page.screenshot({ path: testInfo.outputPath('clock-warning.png') })

  const inTime = await zones.open('Europe/Berlin', server.url)
  await expect(inTime.getByTestId('browser-zone')).toBeVisible()
  await expect(inTime.getByTestId('clock-warning')).toHaveCount(0)
})

test('a browser whose clock runs 100 days ahead dates today’s messages as today, by the server’s clock, as soon as the clock check comes back', async ({ zones, servers }) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/api/sessions', { sessionId: 'far-ahead', timeZone: 'Europe/Berlin' })).status).toBe(201)
  expect((await post('/api/sessions/far-ahead/messages', { text: 'good morning', clientTimeZone: 'Europe/Berlin' })).status).toBe(202)
  await waitForTurnEnds(server.url, 'far-ahead', 1)
  const page = await zones.open('Europe/Berlin')
  await page.clock.install({ time: Date.now() + 100 * 86_400_000 })
  await page.goto(`${server.url}/s/far-ahead`)
  await expect(page.getByTestId('clock-warning')).toHaveText(/^Your device clock is 100 days/)
  // a clock time alone, as for any message of today (on the code before, a full date until the minute's tick)
  await expect(page.getByTestId('message-user').locator('.stamp').first()).toHaveText(/^\d{1,2}:\d{2}\s[AP]M$/)
  await expect(page.getByTestId('message-assistant').locator('.stamp').first()).toHaveText(/^\d{1,2}:\d{2}\s[AP]M$/)
})

test('two Snoozes in a row that say the same words are both read out', async ({ zones, servers }) => {
  const server = await servers.start()
  const api = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    expect(response.status, `${method} ${path}`).toBeLessThan(300)
  }
  for (const id of ['upstairs', 'downstairs', 'here']) await api('POST', '/api/sessions', { sessionId: id, timeZone: 'Europe/Berlin' })
  const page = await zones.open('Europe/Berlin', `${server.url}/s/here`)
  await expect(page.getByTestId('session-status')).toBeVisible()
  // every node put into the notifications region, with its words
  await page.evaluate(() => {
    const said: string[] = []
    ;(window as unknown as { __said: string[] }).__said = said
    new MutationObserver((records) => {
      for (const record of records) for (const node of record.addedNodes) if (node instanceof HTMLElement && node.dataset.testid === 'toast-said') said.push(node.textContent ?? '')
    }).observe(document.querySelector('section.toasts') ?? document.body, { childList: true })
  })
  for (const [index, id] of ['upstairs', 'downstairs'].entries()) await api('POST', `/api/sessions/${id}/schedules`, { prompt: 'Take the bread out', after_seconds: 2 + index })
  const toast = page.getByTestId('toast')
  await expect(toast).toHaveCount(2, { timeout: 20_000 })
  await toast.last().getByTestId('reminder-snooze').click()
  await expect(toast).toHaveCount(1)
  await toast.getByTestId('reminder-snooze').click()
  await expect(toast).toHaveCount(0)
  const [one] = await fetchSchedules(server.url, 'upstairs')
  const [two] = await fetchSchedules(server.url, 'downstairs')
  const words = (at: unknown) => `Snoozed “Take the bread out”: again today ${localClock(at as string, 'Europe/Berlin', 'en-US')}.`
  // on the code before, one node whose words did not change: a screen reader read the second Snooze out not at all
  await expect.poll(() => page.evaluate(() => (window as unknown as { __said: string[] }).__said)).toEqual([words(two.scheduledAt), words(one.scheduledAt)])
})

test('a reminder snoozed in one browser, or by asking the assistant, shows as snoozed in every browser, which no longer offers to snooze it again, and snoozed again moves that snooze', async ({ zones, servers }) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/api/sessions', { sessionId: 'shared', timeZone: 'Europe/Berlin' })).status).toBe(201)
  const laptop = await zones.open('Europe/Berlin', `${server.url}/s/shared`)
  const phone = await zones.open('Europe/Berlin', `${server.url}/s/shared`, { viewport: PHONE })
  for (const page of [laptop, phone]) await expect(page.getByTestId('composer-input')).toBeVisible()
  expect((await post('/api/sessions/shared/schedules', { prompt: 'water the plants', after_seconds: 1 })).status).toBe(201)
  const card = (page: typeof laptop) => page.getByTestId('reminder-due').filter({ hasText: 'water the plants' })
  for (const page of [laptop, phone]) await expect(card(page).getByTestId('reminder-snooze')).toBeVisible({ timeout: 15_000 })

  // the laptop's card snoozes it: the phone's card says until when, with no Snooze or Done left (on the code before,
  // the phone still offered both)
  await card(laptop).getByTestId('reminder-snooze').click()
  await expect(card(laptop)).toContainText('Snoozed:')
  await expect(card(phone)).toContainText('Snoozed:')
  await expect(card(phone).getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(phone.getByTestId('toast').filter({ hasText: 'water the plants' })).toHaveCount(0)
  await expect.poll(async () => (await fetchSchedules(server.url, 'shared')).map((s) => s.prompt)).toEqual(['water the plants'])

  // snoozed again in words on the phone, the laptop's snooze is moved: still one reminder, and both cards say its new
  // time (on the code before, the assistant made a second reminder and the cards kept the first time)
  const [snooze] = await fetchSchedules(server.url, 'shared')
  await sendMessage(phone, 'snooze 30 min')
  await expect(phone.getByTestId('message-assistant').last()).toContainText(`Snoozed: "water the plants" comes back`)
  await expect.poll(async () => (await fetchSchedules(server.url, 'shared')).map((s) => [s.id, s.afterSeconds])).toEqual([[snooze.id, 1800]])
  const [moved] = await fetchSchedules(server.url, 'shared')
  for (const page of [laptop, phone]) await expect(card(page).getByRole('status')).toHaveText(snoozedSaid(moved.scheduledAt as string, 'Europe/Berlin'))

  // asked in words on the phone, the assistant's snooze shows on the laptop's card as well
  expect((await post('/api/sessions/shared/schedules', { prompt: 'call Alex back', after_seconds: 1 })).status).toBe(201)
  const alex = (page: typeof laptop) => page.getByTestId('reminder-due').filter({ hasText: 'call Alex back' })
  for (const page of [laptop, phone]) await expect(alex(page).getByTestId('reminder-snooze')).toBeVisible({ timeout: 15_000 })
  await sendMessage(phone, 'snooze')
  await expect(phone.getByTestId('message-assistant').last()).toContainText('Snoozed: "call Alex back"')
  await expect(alex(laptop)).toContainText('Snoozed:')
  await expect(alex(laptop).getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(alex(phone)).toContainText('Snoozed:')
})

test('on a phone, a reminder of the Session in view comes due on its card alone, with no toast saying it again over the conversation; one of another Session still has its toast', async ({
  zones,
  servers,
}) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  for (const id of ['here', 'elsewhere']) expect((await post('/api/sessions', { sessionId: id, timeZone: 'Europe/Berlin' })).status).toBe(201)
  const page = await zones.open('Europe/Berlin', undefined, { viewport: PHONE })
  // every toast that shows, however briefly, by its Session
  await page.addInitScript(() => {
    const seen = window as unknown as { toastsSeen: string[] }
    seen.toastsSeen = []
    new MutationObserver((records) => {
      for (const record of records) {
        for (const node of record.addedNodes) {
          if (!(node instanceof HTMLElement)) continue
          const toasts = [...(node.matches('[data-testid="toast"]') ? [node] : []), ...node.querySelectorAll<HTMLElement>('[data-testid="toast"]')]
          for (const toast of toasts) seen.toastsSeen.push(toast.dataset.sessionId ?? '')
        }
      }
    }).observe(document, { childList: true, subtree: true })
  })
  await page.goto(`${server.url}/s/here`)
  await expect(page.getByTestId('composer-input')).toBeVisible()
  const toastsSeen = () => page.evaluate(() => (window as unknown as { toastsSeen: string[] }).toastsSeen)

  expect((await post('/api/sessions/here/schedules', { prompt: 'stretch your legs', after_seconds: 1 })).status).toBe(201)
  const card = page.getByTestId('reminder-due').filter({ hasText: 'stretch your legs' })
  await expect(card.getByTestId('reminder-snooze')).toBeInViewport({ timeout: 15_000 })
  // past the moment a phone waits for the card (on the code before, a toast said it again over the conversation)
  await page.waitForTimeout(3_000)
  await expect(page.getByTestId('toast')).toHaveCount(0)
  expect(await toastsSeen()).toEqual([])

  // with the reminders drawer open over the conversation, its card is out of sight: the toast says it, and closes as the
  // drawer does and the card is in view
  await page.getByTestId('reminders-toggle').click()
  expect((await post('/api/sessions/here/schedules', { prompt: 'drink water', after_seconds: 1 })).status).toBe(201)
  const toast = page.getByTestId('toast')
  await expect(toast).toContainText('drink water', { timeout: 15_000 })
  await page.getByTestId('reminders-drawer').getByRole('button', { name: 'Close' }).click()
  await expect(page.getByTestId('reminder-due').filter({ hasText: 'drink water' })).toBeInViewport()
  await expect(toast).toHaveCount(0)

  // a reminder of a Session not in view reaches the person as a toast, on a phone too
  expect((await post('/api/sessions/elsewhere/schedules', { prompt: 'feed the cat', after_seconds: 1 })).status).toBe(201)
  await expect(toast).toContainText('feed the cat', { timeout: 15_000 })
  expect(await toastsSeen()).toEqual(['here', 'elsewhere'])
  await expect(card.getByTestId('reminder-snooze')).toBeVisible()
})

test('on a phone, a toast that comes as the reminders drawer is open leaves the drawer below it: its Close and its first reminders are not under the toast', async ({ zones, servers }) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/api/sessions', { sessionId: 'here', timeZone: 'Europe/Berlin' })).status).toBe(201)
  for (let i = 1; i <= 4; i++) expect((await post('/api/sessions/here/schedules', { prompt: `water plant ${i}`, after_seconds: 3_600 })).status).toBe(201)
  const page = await zones.open('Europe/Berlin', `${server.url}/s/here`, { viewport: PHONE })
  await page.getByTestId('reminders-toggle').click()
  const drawer = page.getByTestId('reminders-drawer')
  await expect(drawer.getByTestId('reminder')).toHaveCount(4)
  expect((await post('/api/sessions/here/schedules', { prompt: 'drink water and then take a long walk around the block', after_seconds: 1 })).status).toBe(201)
  const toast = page.getByTestId('toast')
  await expect(toast).toBeVisible({ timeout: 15_000 })
  // on the code before, the drawer (80% of the screen) lay under the toast, its Close and heading hidden by it
  await expect.poll(async () => (await drawer.boundingBox())!.y, { timeout: 5_000 }).toBeGreaterThanOrEqual(Math.floor((await toast.boundingBox())!.y + (await toast.boundingBox())!.height))
  const close = drawer.getByRole('button', { name: 'Close' })
  const box = (await close.boundingBox())!
  expect(await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('button')?.textContent, [box.x + box.width / 2, box.y + box.height / 2])).toBe('Close')
  await close.click()
  await expect(toast).toHaveCount(0)
})

test('a snooze deleted since is no longer shown as snoozed on its due card, in the browser that snoozed it, after a reload, and in another browser', async ({ zones, servers }) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  expect((await post('/api/sessions', { sessionId: 'kitchen', timeZone: 'Europe/Berlin' })).status).toBe(201)
  const page = await zones.open('Europe/Berlin', `${server.url}/s/kitchen`)
  await expect(page.getByTestId('composer-input')).toBeVisible()
  const made = await post('/api/sessions/kitchen/schedules', { prompt: 'check the oven', after_seconds: 1 })
  expect(made.status).toBe(201)
  const { schedule: first } = (await made.json()) as { schedule: { scheduledAt: string } }
  const card = (on: typeof page) => on.getByTestId('reminder-due').filter({ hasText: 'check the oven' })
  await card(page).getByTestId('reminder-snooze').click({ timeout: 15_000 })
  await expect(card(page).getByRole('status')).toContainText('Snoozed: again')
  await expect.poll(async () => (await fetchSchedules(server.url, 'kitchen')).map((s) => s.id)).toEqual(['schedule-2'])
  // the panel says the new reminder is the snooze of that occurrence (on the code before, "Once, 10 min after it was set")
  const row = page.getByTestId('reminder').filter({ hasText: 'check the oven' })
  await expect(row.getByTestId('reminder-rule')).toHaveText(new RegExp(`^Once, snoozed from (today|yesterday) ${localClock(first.scheduledAt, 'Europe/Berlin', 'en-US')} · schedule-2$`))

  // the snooze deleted from the panel: the card no longer says it is snoozed (on the code before, it still said until when)
  await row.getByTestId('reminder-delete').click()
  await expect.poll(async () => (await fetchSchedules(server.url, 'kitchen')).length).toBe(0)
  await expect(card(page).getByRole('status')).toHaveText('Snooze deleted.')
  await page.reload()
  await expect(card(page).getByRole('status')).toHaveText('Snooze deleted.')
  const other = await zones.open('Europe/Berlin', `${server.url}/s/kitchen`)
  await expect(card(other).getByRole('status')).toHaveText('Snooze deleted.')
  await expect(card(other).getByTestId('reminder-snooze')).toHaveCount(0)

  // the assistant asked to snooze it once more makes a new snooze of it: the card and the panel say so again (on the
  // code before, the card kept "Snooze deleted." and the row "Once, 10 min after it was set" as the assistant said when)
  await sendMessage(page, 'snooze that for 10 minutes')
  await expect.poll(async () => (await fetchSchedules(server.url, 'kitchen')).map((s) => s.id), { timeout: 30_000 }).toEqual(['schedule-3'])
  for (const on of [page, other]) await expect(card(on).getByRole('status')).toContainText('Snoozed: again')
  await expect(row.getByTestId('reminder-rule')).toHaveText(new RegExp(`^Once, snoozed from (today|yesterday) ${localClock(first.scheduledAt, 'Europe/Berlin', 'en-US')} · schedule-3$`))
})

test('a toast whose snooze was deleted before this browser saw it offers no Snooze once the browser loads its Session, as the due card says', async ({ zones, servers }) => {
  const server = await servers.start()
  const post = (path: string, body: unknown) => fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  for (const id of ['kitchen', 'hall']) expect((await post('/api/sessions', { sessionId: id, timeZone: 'Europe/Berlin' })).status).toBe(201)
  const page = await zones.open('Europe/Berlin', `${server.url}/s/hall`)
  await expect(page.getByTestId('composer-input')).toBeVisible()
  expect((await post('/api/sessions/kitchen/schedules', { prompt: 'check the oven', after_seconds: 1 })).status).toBe(201)
  const toast = page.getByTestId('toast').filter({ hasText: 'check the oven' })
  await expect(toast).toBeVisible({ timeout: 15_000 })

  // snoozed elsewhere and that snooze deleted, while this browser holds none of the kitchen's log
  expect((await post('/api/sessions/kitchen/schedules/schedule-1/snooze', { seconds: 600 })).status).toBe(201)
  expect((await fetch(`${server.url}/api/sessions/kitchen/schedules/schedule-2`, { method: 'DELETE' })).status).toBe(200)
  expect(await fetchSchedules(server.url, 'kitchen')).toEqual([])

  // the kitchen opened from the list: its card and its toast say the same, and neither offers to snooze it (on the code
  // before, the toast still offered Snooze 10 min, which would have snoozed it anew)
  await page.locator('[data-testid="session-item"][data-session-id="kitchen"]').click()
  await page.waitForURL(/\/s\/kitchen$/)
  const card = page.getByTestId('reminder-due').filter({ hasText: 'check the oven' })
  await expect(card.getByRole('status')).toHaveText('Snooze deleted.')
  await expect(card.getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(toast).toContainText('Snooze deleted.')
  await expect(toast.getByTestId('reminder-snooze')).toHaveCount(0)
  await expect(toast.getByTestId('toast-dismiss')).toBeVisible()
  expect(await fetchSchedules(server.url, 'kitchen')).toEqual([])
})
