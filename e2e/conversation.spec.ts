import type { Page } from '@playwright/test'
import { expect, test } from './support/fixtures.ts'
import { expectAccessible } from './support/axe.ts'
import { PHONE, createSessionFromUi, expandReading, readingCards, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { personMessages, postMessage, readSessionFile, textOf, turnEnds } from './support/log.ts'

const STEP_ONE_MS = 6_000

test('axe-core finds no violation on the empty, conversation, disagreement, running and mixed views', async ({ zones, servers }, testInfo) => {
  const server = await servers.start({
    script: [
      { toolCalls: [{ name: 'schedule_create', arguments: { prompt: 'Stand up and stretch', after_seconds: 1800 } }] },
      { text: 'I will remind you in 30 minutes.' },
      { text: 'Thinking about your evening.', delayMs: STEP_ONE_MS },
      { text: 'Both of you are heard.' },
    ],
  })
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  await expect(shanghai.getByText('No sessions yet.')).toBeVisible()
  await expectAccessible(shanghai, testInfo, 'empty')
  const id = await createSessionFromUi(shanghai)
  await expect(shanghai.getByText('No messages yet.')).toBeVisible()
  await expectAccessible(shanghai, testInfo, 'empty-session')

  await sendMessage(shanghai, 'Remind me in 30 minutes to stand up and stretch')
  await expect(shanghai.getByTestId('reminder')).toHaveCount(1)
  await expect(shanghai.getByTestId('message-assistant')).toHaveText(/I will remind you in 30 minutes\./)
  await expandReading(readingCards(shanghai).first())
  await expectAccessible(shanghai, testInfo, 'conversation-readings-reminders')

  const newYork = await zones.open('America/New_York', shanghai.url())
  await expect(newYork.getByTestId('zone-disagreement')).toBeVisible()
  await expectAccessible(newYork, testInfo, 'disagreement')

  await sendMessage(shanghai, 'Plan my evening')
  await expect(newYork.getByTestId('cancel-turn')).toBeVisible()
  await expectAccessible(newYork, testInfo, 'running-turn')
  await sendMessage(newYork, 'Also plan my morning', 'steer')
  const mixed = readingCards(newYork).and(newYork.locator('[data-client-kind="mixed"]'))
  await expect(mixed).toBeVisible({ timeout: STEP_ONE_MS + 10_000 })
  await expect(newYork.getByTestId('message-assistant').last()).toHaveText(/Both of you are heard\./)
  await expandReading(mixed)
  await expectAccessible(newYork, testInfo, 'mixed')
  await waitForTurnEnds(server.url, id, 2)
})

async function inViewport(page: Page, testId: string): Promise<boolean> {
  const box = await page.getByTestId(testId).boundingBox()
  return box !== null && box.y >= 0 && box.y + box.height <= PHONE.height && box.x >= 0 && box.x + box.width <= PHONE.width
}

test('on a phone with no Session open, the list of Sessions has the screen and the welcome only the room it needs', async ({ zones, servers }) => {
  const server = await servers.start()
  const phone = await zones.open('America/New_York', server.url, { viewport: PHONE })
  const heights = () =>
    phone.evaluate(() => {
      const height = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().height ?? -1
      return { sidebar: height('nav.sidebar'), main: height('main'), content: height('main .zone-bar') + height('main .welcome') }
    })
  // with none yet, the list's one line and the welcome share the screen
  await expect(phone.getByText('No sessions yet. Create one to start.')).toBeVisible()
  const empty = await heights()
  expect(empty.sidebar + empty.main).toBeCloseTo(PHONE.height, 0)
  expect(empty.main).toBeGreaterThan(PHONE.height / 3)
  for (let i = 0; i < 20; i++) {
    const response = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: `phone-${String(i).padStart(2, '0')}`, timeZone: 'Europe/Berlin' }),
    })
    expect(response.status).toBe(201)
  }
  await phone.reload()
  await expect(phone.getByTestId('session-item')).toHaveCount(20)
  const listed = await heights()
  expect(listed.main).toBeCloseTo(listed.content, 0)
  expect(listed.sidebar + listed.main).toBeCloseTo(PHONE.height, 0)
  expect(listed.main).toBeLessThan(PHONE.height / 4)
  // on the code before, the welcome took half the screen and the list showed six Sessions
  const shown = await phone.evaluate(() => {
    const list = document.querySelector('.session-list-wrap')?.getBoundingClientRect()
    const items = [...document.querySelectorAll('[data-testid="session-item"]')].map((item) => item.getBoundingClientRect())
    return list === undefined ? 0 : items.filter((box) => box.top >= list.top && box.bottom <= list.bottom).length
  })
  expect(shown).toBeGreaterThanOrEqual(9)
  await expect(phone.getByRole('heading', { name: 'Schedule Web' })).toBeInViewport()
})

test('on a phone the zones and the disagreement banner stay in view, reminders live in a drawer and nothing scrolls sideways; dark mode passes axe too', async ({
  zones,
  servers,
}, testInfo) => {
  const server = await servers.start()
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  const id = await createSessionFromUi(shanghai)
  await sendMessage(shanghai, 'remind me in 30 minutes to water the plants')
  await waitForTurnEnds(server.url, id, 1)
  for (let i = 0; i < 6; i++) {
    await postMessage(server.url, id, `Message ${i + 1}: a longer note about the trip, the flights, the hotel and a-very-long-unbroken-word-${'x'.repeat(60)}`, 'Asia/Shanghai')
    await waitForTurnEnds(server.url, id, i + 2)
  }

  const phone = await zones.open('America/New_York', shanghai.url(), { viewport: PHONE })
  await expect(phone.getByTestId('message-assistant').last()).toBeVisible()
  await expect(phone.getByTestId('zone-disagreement')).toBeVisible()
  await phone.getByRole('region', { name: 'Conversation' }).evaluate((pane) => pane.scrollTo(0, pane.scrollHeight))
  await phone.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight))
  await expect(phone.getByTestId('message-user').last()).toBeInViewport()
  for (const testId of ['session-zone', 'browser-zone', 'zone-disagreement']) expect(await inViewport(phone, testId), `${testId} in view`).toBe(true)
  expect(await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
  await expect(phone.getByTestId('reminders-drawer')).toBeHidden()
  // the Session's name is read whole on a phone (a row to itself, up to two lines), and the drawer's button counts the reminders
  await expect(phone.getByTestId('session-title')).toHaveText('remind me in 30 minutes to water the plants')
  expect(await phone.getByTestId('session-title').evaluate((title) => [title.scrollWidth - title.clientWidth, title.scrollHeight - title.clientHeight])).toEqual([0, 0])
  await expect(phone.getByTestId('reminders-toggle')).toHaveText('Reminders 1')
  await expectAccessible(phone, testInfo, 'phone')

  await phone.getByTestId('reminders-toggle').click()
  await expect(phone.getByTestId('reminders-drawer')).toBeVisible()
  await expect(phone.getByTestId('reminders-drawer').getByTestId('reminder')).toContainText('water the plants')
  // the drawer takes focus, leaves the zones and the banner in view, and the conversation behind it out of reach
  await expect(phone.getByTestId('reminders-drawer').getByRole('button', { name: 'Close' })).toBeFocused()
  for (const testId of ['session-zone', 'browser-zone', 'zone-disagreement']) expect(await inViewport(phone, testId), `${testId} in view beside the drawer`).toBe(true)
  await expect(phone.locator('.chat')).toHaveAttribute('inert', '')
  await expectAccessible(phone, testInfo, 'phone-reminders-drawer')
  await phone.keyboard.press('Escape')
  await expect(phone.getByTestId('reminders-drawer')).toBeHidden()
  // and gives focus back to its button
  await expect(phone.getByTestId('reminders-toggle')).toBeFocused()
  await expect(phone.locator('.chat')).not.toHaveAttribute('inert')

  // a phone on its side, and a laptop at 200% zoom: the conversation keeps most of the screen, the zones and the composer stay in view
  for (const viewport of [{ width: 667, height: 375 }, { width: 640, height: 400 }]) {
    await phone.setViewportSize(viewport)
    const boxes = await Promise.all(['session-zone', 'browser-zone', 'zone-disagreement', 'composer-send'].map((testId) => phone.getByTestId(testId).boundingBox()))
    for (const box of boxes) expect(box !== null && box.y >= 0 && box.y + box.height <= viewport.height, `${JSON.stringify(viewport)}: ${JSON.stringify(box)}`).toBe(true)
    const conversation = await phone.getByRole('region', { name: 'Conversation' }).boundingBox()
    expect(conversation !== null && conversation.height / viewport.height, `${JSON.stringify(viewport)}: conversation ${JSON.stringify(conversation)}`).toBeGreaterThanOrEqual(0.4)
  }
  await phone.setViewportSize(PHONE)

  const dark = await zones.open('America/New_York', shanghai.url(), { colorScheme: 'dark' })
  await expect(dark.getByTestId('message-assistant').last()).toBeVisible()
  await expandReading(readingCards(dark).last())
  await expectAccessible(dark, testInfo, 'dark')
  const darkPhone = await zones.open('Asia/Shanghai', shanghai.url(), { colorScheme: 'dark', viewport: PHONE })
  await expect(darkPhone.getByTestId('message-assistant').last()).toBeVisible()
  await expectAccessible(darkPhone, testInfo, 'dark-phone')
})

test('killing the server shows the offline banner within 3 s and disables Send and Stop with the reason; after a restart it clears and Retry runs the interrupted turn', async ({
  zones,
  servers,
}, testInfo) => {
  let server = await servers.start({ script: [{ text: 'This takes a while.', delayMs: 120_000 }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  await sendMessage(page, 'Plan the trip to Kyoto')
  await expect(page.getByTestId('cancel-turn')).toBeEnabled()
  await page.getByTestId('composer-input').fill('Are you still there?')
  await expect(page.getByTestId('composer-send')).toBeEnabled()
  await expect(page.getByTestId('offline-banner')).toHaveCount(0)

  const killedAt = Date.now()
  await server.stop()
  await page.getByTestId('composer-send').click()
  await expect(page.getByRole('alert')).toHaveText('Not confirmed: Cannot reach the server. Send it again; it will not appear twice.')
  await expect(page.getByTestId('offline-banner')).toBeVisible({ timeout: Math.max(0, 3_000 - (Date.now() - killedAt)) })
  expect(Date.now() - killedAt).toBeLessThanOrEqual(3_000)
  await expect(page.getByTestId('offline-banner')).toHaveText(
    'Offline. The server cannot be reached; the overlay reconnects by itself. Sending and stopping wait until then.',
  )
  await expect(page.getByTestId('composer-send')).toBeDisabled()
  await expect(page.getByTestId('cancel-turn')).toBeDisabled()
  await expect(page.locator('.composer-hint')).toHaveText('Offline: sending and stopping wait until the server is reachable again.')
  // said once to assistive tech: the banner announces it, the hint describes the disabled buttons
  await expect(page.getByRole('status').filter({ hasText: /offline/i })).toHaveCount(1)
  await expect(page.getByTestId('session-status')).toHaveText('Status unknown')
  await expectAccessible(page, testInfo, 'offline')

  server = servers.track(await server.restart({ samePort: true, args: [] }))
  await expect(page.getByTestId('offline-banner')).toHaveCount(0, { timeout: 15_000 })
  await expect(page.getByRole('alert')).toHaveCount(0)
  await expect(page.getByTestId('composer-input')).toHaveValue('Are you still there?')
  const interrupted = page.getByTestId('turn-end')
  await expect(interrupted).toHaveAttribute('data-reason', 'error')
  await expect(interrupted).toContainText('This turn was interrupted when the server stopped.')
  await expect(page.getByTestId('composer-send')).toBeEnabled()
  await page.screenshot({ path: testInfo.outputPath('retry-offered.png') })
  await page.getByTestId('retry-turn').click()
  await expect(page.getByTestId('message-user')).toHaveCount(2)
  await expect(page.getByTestId('message-user').last()).toContainText('Plan the trip to Kyoto')
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  await expect(page.getByTestId('retry-turn')).toHaveCount(0)

  const events = await waitForTurnEnds(server.url, id, 2)
  expect(turnEnds(events).map((e) => e.data)).toEqual([
    { turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' },
    { turn: 2, reason: 'completed' },
  ])
  const { events: onDisk } = await readSessionFile(server.dataDir, id)
  expect(personMessages(onDisk).map((e) => [e.data.content[0].text, (e.data.source as { clientTimeZone: string }).clientTimeZone])).toEqual([
    ['Plan the trip to Kyoto', 'Europe/Berlin'],
    ['Plan the trip to Kyoto', 'Europe/Berlin'],
  ])
})

test('a message whose answer was lost on the way back is said to be unconfirmed, and sending it again enters it once', async ({ zones, servers }) => {
  const server = await servers.start({ script: [{ text: 'Noted once.' }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  // the message reaches the server, which makes it durable; its answer never reaches the page
  let reached = 0
  await page.route('**/messages', async (route) => {
    reached++
    await route.fetch()
    await route.abort('connectionreset')
  })
  await page.getByTestId('composer-input').fill('Book the table for Friday')
  await page.getByTestId('composer-send').click()
  await expect(page.getByRole('alert')).toHaveText('Not confirmed: Cannot reach the server. Send it again; it will not appear twice.')
  await expect(page.getByTestId('composer-input')).toHaveValue('Book the table for Friday')
  await expect(page.getByTestId('message-user')).toHaveCount(1)
  await page.unroute('**/messages')
  await page.getByTestId('composer-send').click()
  await expect(page.getByTestId('composer-input')).toHaveValue('')
  await expect(page.getByRole('alert')).toHaveCount(0)
  await expect(page.getByTestId('message-assistant')).toHaveText(/Noted once\./)
  await expect(page.getByTestId('message-user')).toHaveCount(1)

  const events = await waitForTurnEnds(server.url, id, 1)
  expect(reached).toBe(1)
  expect(turnEnds(events).map((e) => e.data)).toEqual([{ turn: 1, reason: 'completed' }])
  const { events: onDisk } = await readSessionFile(server.dataDir, id)
  const enqueued = onDisk.filter((e) => e.type === 'inbox/enqueued')
  expect(enqueued.map((e) => (e.data as { message: { source: { rpcId: string } } }).message.source.rpcId)).toEqual([expect.stringMatching(/^key-[0-9a-f]{32}$/)])
  expect(personMessages(onDisk).map((e) => e.data.content[0].text)).toEqual(['Book the table for Friday'])
})

function contrast(a: string, b: string): number {
  const channels = (color: string): number[] => (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number)
  const luminance = (color: string): number => {
    const [r, g, b2] = channels(color).map((c) => {
      const v = c / 255
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b2
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

async function focusRing(page: Page): Promise<{ width: number; ring: string; background: string }> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement
    const style = getComputedStyle(element)
    let node: HTMLElement | null = element.parentElement
    let background = 'rgb(255, 255, 255)'
    while (node !== null) {
      const bg = getComputedStyle(node).backgroundColor
      if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') {
        background = bg
        break
      }
      node = node.parentElement
    }
    return { width: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth), ring: style.outlineColor, background }
  })
}

test('keyboard only: the message box one Tab away, focus after New session and after a delete, visible focus, Escape stops a running turn; RTL text runs right to left', async ({
  zones,
  servers,
}, testInfo) => {
  const server = await servers.start({
    script: [
      {
        toolCalls: [
          { name: 'schedule_create', arguments: { prompt: 'first', after_seconds: 1800 } },
          { name: 'schedule_create', arguments: { prompt: 'second', after_seconds: 3600 } },
        ],
      },
      { text: 'Two reminders are set.' },
      { text: 'Thinking very hard.', delayMs: 60_000 },
      { text: 'Thought it over.' },
      { text: 'أهلاً! أنا بخير.' },
    ],
  })
  const page = await zones.open('UTC', server.url)
  await expect(page.getByText('No sessions yet.')).toBeVisible()
  await page.keyboard.press('Tab')
  await expect(page.locator(':focus')).toHaveText('Skip to content')
  await page.keyboard.press('Tab')
  await expect(page.getByTestId('new-session')).toBeFocused()
  await page.keyboard.press('Enter')
  await page.waitForURL(/\/s\//)
  await expect(page.getByTestId('composer-input')).toBeFocused()

  await page.reload()
  await expect(page.getByTestId('session-status')).toBeVisible()
  await page.keyboard.press('Tab')
  await expect(page.locator(':focus')).toHaveText('Skip to the message box')
  const skipRing = await focusRing(page)
  expect(skipRing.width).toBeGreaterThanOrEqual(2)
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('composer-input')).toBeFocused()
  const ring = await focusRing(page)
  expect(ring.width).toBeGreaterThanOrEqual(2)
  expect(contrast(ring.ring, ring.background)).toBeGreaterThanOrEqual(3)

  await page.keyboard.type('Set two reminders')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('reminder')).toHaveCount(2)
  await page.getByTestId('reminder-delete').first().focus()
  const buttonRing = await focusRing(page)
  expect(contrast(buttonRing.ring, buttonRing.background)).toBeGreaterThanOrEqual(3)
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('reminder')).toHaveCount(1)
  // focus lands on Undo, not on the next reminder's Delete, so a second Enter brings the first back instead of deleting another
  await expect(page.getByTestId('reminder-undo')).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('reminder')).toHaveCount(2)
  await expect(page.getByTestId('reminder-deleted')).toHaveCount(0)
  await expect(page.locator(':focus')).toHaveAttribute('data-testid', 'reminder-edit')

  await page.getByTestId('composer-input').focus()
  await page.keyboard.type('Think about it for a long time')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('cancel-turn')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByTestId('turn-end')).toHaveAttribute('data-reason', 'aborted')
  await expect(page.getByTestId('session-status')).toHaveAttribute('data-status', 'idle')
  // a stopped turn can be run again; Retry leaves focus in the message box, not on a button that goes away
  await expect(page.getByTestId('turn-end')).toHaveText('Stopped.Retry')
  await page.getByTestId('retry-turn').focus()
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('composer-input')).toBeFocused()
  await expect(page.getByTestId('message-assistant').last()).toHaveText(/Thought it over\.$/)
  await expect(page.getByTestId('message-user').last().locator('.msg-text')).toHaveText('Think about it for a long time')
  await expect(page.getByTestId('retry-turn')).toHaveCount(0)

  await page.getByTestId('composer-input').focus()
  await page.keyboard.type('مرحبا! كيف حالك اليوم؟')
  await page.keyboard.press('Enter')
  const arabic = page.getByTestId('message-user').last().locator('.msg-text')
  await expect(arabic).toHaveText('مرحبا! كيف حالك اليوم؟')
  await expect(arabic).toHaveAttribute('dir', 'auto')
  expect(await arabic.evaluate((node) => getComputedStyle(node).direction)).toBe('rtl')
  const reply = page.getByTestId('message-assistant').last().locator('.msg-text')
  await expect(reply).toHaveText('أهلاً! أنا بخير.')
  await expect(page.getByTestId('announcer')).toHaveText(/Assistant: أهلاً! أنا بخير\.$/)
  await expect(page.getByTestId('announcer')).not.toContainText('Time ')
  expect(await reply.evaluate((node) => getComputedStyle(node).direction)).toBe('rtl')
  await page.screenshot({ path: testInfo.outputPath('rtl.png') })
})

test('a model that streams slowly shows its text progressively before the durable message replaces it, from its first word after a reload too', async ({ zones, servers }, testInfo) => {
  const server = await servers.start({ script: [{ text: 'Good morning! Here is your plan for today: stretch, write, walk, read and rest.', streamDelayMs: 400 }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  await sendMessage(page, 'Plan my day')
  const streaming = page.getByTestId('message-streaming')
  await expect(streaming).toContainText('Good morning!')
  await expect(streaming).not.toContainText('rest.')
  await expect(page.getByTestId('message-assistant')).toHaveCount(0)
  await page.screenshot({ path: testInfo.outputPath('streaming.png') })
  // a page opened mid-answer shows the answer from its beginning, not from the next word
  await page.reload()
  await expect(streaming).toContainText(/Good morning! Here is your plan/)
  await expect(page.getByTestId('message-assistant')).toHaveCount(0)
  await expect(page.getByTestId('message-assistant')).toHaveText(/Good morning! Here is your plan for today: stretch, write, walk, read and rest\./)
  await expect(streaming).toHaveCount(0)
  await waitForTurnEnds(server.url, id, 1)
})

test('a Session can be renamed, and untitled Sessions are told apart by when they started', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const page = await zones.open('Asia/Tokyo', server.url, { locale: 'en-GB' })
  const first = await createSessionFromUi(page)
  await expect(page.getByTestId('session-title')).toHaveText(/^Started today \d{2}:\d{2}$/)
  await page.getByTestId('session-rename').click()
  // while it is renamed the page keeps its heading
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/^Started today \d{2}:\d{2}$/)
  await expectAccessible(page, testInfo, 'renaming')
  await page.getByTestId('session-rename-input').fill('Trip to Kyoto')
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('session-title')).toHaveText('Trip to Kyoto')
  await expect(page.getByTestId('session-rename')).toBeFocused()
  await expect(page.locator(`[data-testid="session-item"][data-session-id="${first}"]`)).toContainText('Trip to Kyoto')
  const { events } = await readSessionFile(server.dataDir, first)
  expect(events.map((e) => [e.type, e.data])).toEqual([['session/title', { title: 'Trip to Kyoto' }]])

  await page.reload()
  await expect(page.getByTestId('session-title')).toHaveText('Trip to Kyoto')
})

test('a link to a Session that does not exist says so plainly, with a heading, a way back and a skip link that lands', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const page = await zones.open('Europe/Berlin', `${server.url}/s/no-such-session`, { viewport: PHONE })
  await expect(page.getByRole('alert')).toHaveText('Session not found.No session has the id “no-such-session”.Back to sessions')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Session not found')
  await expectAccessible(page, testInfo, 'session-not-found')
  await page.keyboard.press('Tab')
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page.locator('#main')).toBeFocused()
  await page.getByRole('button', { name: 'Back to sessions' }).click()
  await page.waitForURL(`${server.url}/`)
})

test('a half-typed message stays with its Session across a switch to another Session and a reload, until it is sent', async ({ zones, servers }) => {
  const server = await servers.start({ script: [{ text: 'Friday it is.' }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const first = await createSessionFromUi(page)
  const input = page.getByTestId('composer-input')
  await input.fill('Book the table for Friday, and')
  const second = await createSessionFromUi(page)
  await expect(input).toHaveValue('')
  await input.fill('Ask Sam about')

  const open = async (id: string) => {
    await page.locator(`[data-testid="session-item"][data-session-id="${id}"]`).click()
    await page.waitForURL((url) => url.pathname.endsWith(id))
  }
  await open(first)
  await expect(input).toHaveValue('Book the table for Friday, and')
  // taken up where it ends
  await input.focus()
  await page.keyboard.type(' the cake')
  await expect(input).toHaveValue('Book the table for Friday, and the cake')
  await page.reload()
  await expect(input).toHaveValue('Book the table for Friday, and the cake')

  await page.getByTestId('composer-send').click()
  await expect(input).toHaveValue('')
  await expect(page.getByTestId('message-assistant')).toHaveText(/Friday it is\./)
  await open(second)
  await expect(input).toHaveValue('Ask Sam about')
  // an emptied box keeps nothing
  await input.fill('')
  await open(first)
  await expect(input).toHaveValue('')
  await page.reload()
  await expect(input).toHaveValue('')
  await open(second)
  await expect(input).toHaveValue('')
  const events = await waitForTurnEnds(server.url, first, 1)
  expect(personMessages(events).map((e) => [textOf(e), (e.data.source as { clientTimeZone: string }).clientTimeZone])).toEqual([
    ['Book the table for Friday, and the cake', 'Europe/Berlin'],
  ])
})

test('reading further up, the person is told of new messages below and taken back to the latest by one button', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('Europe/Berlin', server.url, { viewport: PHONE })
  const id = await createSessionFromUi(page)
  for (let n = 1; n <= 8; n++) await postMessage(server.url, id, `What time is it? (${n})`, 'Europe/Berlin')
  await waitForTurnEnds(server.url, id, 8)
  const pane = page.getByRole('region', { name: 'Conversation' })
  const jump = page.getByTestId('jump-to-latest')
  await expect(pane.getByTestId('message-user').filter({ hasText: 'What time is it? (8)' })).toBeInViewport()
  await expect(jump).toHaveCount(0)
  const fromBottom = () => pane.evaluate((node) => Math.round(node.scrollHeight - node.scrollTop - node.clientHeight))

  // up there, the way back; then a message from another browser and its answer arrive below
  await pane.evaluate((node) => node.scrollTo({ top: 0 }))
  await expect(jump).toHaveText('Jump to the latest ↓')
  await expect(jump).toHaveAccessibleName('Jump to the latest')
  await postMessage(server.url, id, 'And in New York?', 'America/New_York')
  await waitForTurnEnds(server.url, id, 9)
  await expect(jump).toHaveText('2 new messages ↓')
  expect(await pane.evaluate((node) => node.scrollTop)).toBeLessThan(200)
  await jump.click()
  await expect(jump).toHaveCount(0)
  await expect(pane).toBeFocused()
  await expect(pane.getByTestId('message-user').filter({ hasText: 'And in New York?' })).toBeInViewport()
  await expect.poll(fromBottom).toBeLessThanOrEqual(1)

  // at the bottom it follows new rows, with nothing to jump to; read up and down again, there is nothing new
  await postMessage(server.url, id, 'And now?', 'Europe/Berlin')
  await waitForTurnEnds(server.url, id, 10)
  await expect(pane.getByTestId('message-user').filter({ hasText: 'And now?' })).toBeInViewport()
  await expect(jump).toHaveCount(0)
  await pane.evaluate((node) => node.scrollTo({ top: 0 }))
  await expect(jump).toHaveText('Jump to the latest ↓')
  await pane.evaluate((node) => node.scrollTo({ top: node.scrollHeight }))
  await expect(jump).toHaveCount(0)
})

test('a device that loses its network is said to be offline at once, its message waits in the box, and goes once when the network is back', async ({ zones, servers }) => {
  const server = await servers.start({ script: [{ text: 'Back online, noted.' }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  const banner = page.getByTestId('offline-banner')
  await page.context().setOffline(true)
  await expect(banner).toHaveText('Offline. This device has no network connection; the overlay reconnects by itself. Sending and stopping wait until then.')
  await page.getByTestId('composer-input').fill('Book the table for Friday')
  await expect(page.getByTestId('composer-send')).toBeDisabled()
  await expect(page.locator('.composer-hint')).toHaveText('Offline: sending and stopping wait until the server is reachable again.')
  await page.getByTestId('composer-input').press('Enter')
  await expect(page.getByTestId('composer-input')).toHaveValue('Book the table for Friday')

  await page.context().setOffline(false)
  await expect(banner).toHaveCount(0)
  await sendMessage(page, 'Book the table for Friday')
  await expect(page.getByTestId('message-assistant')).toHaveText(/Back online, noted\./)
  const events = await waitForTurnEnds(server.url, id, 1)
  expect(personMessages(events).map(textOf)).toEqual(['Book the table for Friday'])
})

test('a Session opened by its link is in the list, marked as the one open, even when its page of the list is not loaded yet', async ({ zones, servers }) => {
  const server = await servers.start()
  const ids = Array.from({ length: 53 }, (_, i) => `link-${String(i).padStart(2, '0')}`)
  for (const sessionId of ids) {
    const response = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId, timeZone: 'Europe/Berlin' }),
    })
    expect(response.status).toBe(201)
  }
  // the list's order as the server gives it (newest first; Sessions made in the same millisecond by id)
  const { sessions } = (await (await fetch(`${server.url}/api/sessions?limit=100`)).json()) as { sessions: Array<{ id: string }> }
  const order = sessions.map((session) => session.id)
  expect([...order].sort()).toEqual(ids)
  const oldest = order[order.length - 1]
  const page = await zones.open('Europe/Berlin')
  await page.goto(`${server.url}/s/${oldest}`)
  await expect(page.getByTestId('session-status')).toBeVisible()
  const items = page.getByTestId('session-item')
  // the newest 50, then the oldest, open here, in its place by the list's order (on the code before: not listed at all)
  await expect(items).toHaveCount(51)
  await expect(items.last()).toHaveAttribute('data-session-id', oldest)
  await expect(items.last()).toHaveAttribute('aria-current', 'page')
  await expect(page.locator('[aria-current="page"]')).toHaveCount(1)
  await page.getByRole('button', { name: 'Older sessions' }).click()
  await expect(items).toHaveCount(53)
  expect(await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-session-id')))).toEqual(order)
  await expect(items.last()).toHaveAttribute('aria-current', 'page')
})

test('a message the server could not take says so until the person changes it or sends it again', async ({ zones, servers }) => {
  const server = await servers.start({ script: [{ text: 'Taken this time.' }] })
  const page = await zones.open('Europe/Berlin', server.url)
  await createSessionFromUi(page)
  await page.route('**/messages', (route) =>
    route.fulfill({
      status: 503,
      headers: { 'retry-after': '1' },
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'storage-unavailable', message: 'storage for session s is unavailable' } }),
    }),
  )
  const input = page.getByTestId('composer-input')
  await input.fill('Book the table for Friday')
  await page.getByTestId('composer-send').click()
  await expect(page.getByRole('alert')).toHaveText('Not sent: storage for session s is unavailable')
  await page.unroute('**/messages')
  // on the code before, the notice stayed while the person went on typing, until the next send
  await input.press('End')
  await page.keyboard.type(' at eight')
  await expect(page.getByRole('alert')).toHaveCount(0)
  await page.getByTestId('composer-send').click()
  await expect(input).toHaveValue('')
  await expect(page.getByTestId('message-assistant')).toHaveText(/Taken this time\./)
})

test('a link to a Session that does not exist says so, and the page stops asking the server about it', async ({ zones, servers }) => {
  const server = await servers.start()
  const page = await zones.open('Europe/Berlin')
  const asked: string[] = []
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname
    if (path.startsWith('/api/sessions/nosuch')) asked.push(path)
  })
  await page.clock.install()
  await page.goto(`${server.url}/s/nosuch`)
  await expect(page.getByText('Session not found.')).toBeVisible()
  await page.clock.runFor(1_000)
  const opened = asked.length
  expect(new Set(asked)).toEqual(new Set(['/api/sessions/nosuch', '/api/sessions/nosuch/events', '/api/sessions/nosuch/schedules']))
  // 40 s more of the page's timers (its stream stays open): on the code before, each 404 was asked again, three times
  await page.clock.runFor(40_000)
  await expect(page.getByText('Session not found.')).toBeVisible()
  expect(asked.length).toBe(opened)
})

test('an answer stopped while it streams stays where it was being read, marked as cut off and not kept, until the page is left', async ({ zones, servers }, testInfo) => {
  const server = await servers.start({ script: [{ text: 'Here is the plan: first stretch, then write for an hour, then walk to the river and back.', streamDelayMs: 400 }] })
  const page = await zones.open('Europe/Berlin', server.url)
  const id = await createSessionFromUi(page)
  await sendMessage(page, 'Plan my morning')
  await expect(page.getByTestId('message-streaming')).toContainText('Here is the plan:')
  await page.getByTestId('cancel-turn').click()
  await expect(page.getByTestId('turn-end')).toHaveAttribute('data-reason', 'aborted')
  // on the code before, the words streamed so far vanished as the turn ended: only "Stopped." was left
  const cut = page.getByTestId('message-cut')
  await expect(cut).toContainText(/^Assistantcut off · not keptHere is the plan:/)
  await expect(cut).not.toContainText('river and back.')
  await expect(page.getByTestId('message-streaming')).toHaveCount(0)
  await expect(page.getByTestId('turn-end')).toContainText('Stopped.Retry')
  await page.screenshot({ path: testInfo.outputPath('cut-off.png') })
  await expectAccessible(page, testInfo, 'cut-off')
  // nothing of it is stored: a reload shows the stopped turn without it
  await waitForTurnEnds(server.url, id, 1)
  const { events } = await readSessionFile(server.dataDir, id)
  expect(events.filter((e) => e.type === 'assistant/message')).toEqual([])
  await page.reload()
  await expect(page.getByTestId('turn-end')).toHaveText('Stopped.Retry')
  await expect(cut).toHaveCount(0)
})
