import { expect, test } from './support/fixtures.ts'
import { clientZoneOf, createSessionFromUi, expectZone, localClock, readingCards, readingSessionZoneOf, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { personMessages, readingTexts, readSessionFile } from './support/log.ts'

test('a new Session takes the zone of the browser that created it', async ({ zones, servers }) => {
  const server = await servers.start()
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  await expectZone(shanghai.getByTestId('browser-zone'), 'Asia/Shanghai', 'Shanghai')
  const id = await createSessionFromUi(shanghai)

  await expectZone(shanghai.getByTestId('session-zone'), 'Asia/Shanghai', 'Shanghai')
  await expectZone(shanghai.getByTestId('browser-zone'), 'Asia/Shanghai', 'Shanghai')
  await expect(shanghai.getByTestId('zone-disagreement')).toHaveCount(0)
  // untitled, its name says when it was started; the line under it names the place only
  await expect(shanghai.locator(`[data-testid="session-item"][data-session-id="${id}"] .session-item-meta`)).toHaveText('Shanghai')

  const file = await readSessionFile(server.dataDir, id)
  expect(file.headerLine).toContain('"timeZone":"Asia/Shanghai"')
  expect(file.header).toMatchObject({ type: 'session', version: 1, id, timeZone: 'Asia/Shanghai' })
  expect(file.events).toEqual([])
})

test('a browser in another zone opening the Session link sees the disagreement banner', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  const id = await createSessionFromUi(shanghai)

  const newYork = await zones.open('America/New_York', shanghai.url())
  await expectZone(newYork.getByTestId('session-zone'), 'Asia/Shanghai', 'Shanghai')
  await expectZone(newYork.getByTestId('browser-zone'), 'America/New_York', 'New York')
  const banner = newYork.getByTestId('zone-disagreement')
  await expect(banner).toBeVisible()
  await expect(banner).toHaveAttribute('data-kind', 'different')
  await expect(banner).toContainText('This Session keeps time in Shanghai, but this browser is in New York.')
  await newYork.screenshot({ path: testInfo.outputPath('disagreement-banner.png') })

  await expect(shanghai.getByTestId('zone-disagreement')).toHaveCount(0)
  const file = await readSessionFile(server.dataDir, id)
  expect(file.header.timeZone).toBe('Asia/Shanghai')
  expect(file.events).toEqual([])

  // untitled, the Session is named by when it started on its own clock, in both browsers, beside its place
  const started = `Started today ${localClock(file.header.createdAt, 'Asia/Shanghai', 'en-US')}`
  for (const page of [shanghai, newYork]) {
    await expect(page.getByTestId('session-title')).toHaveText(started)
    const item = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)
    await expect(item.locator('.session-item-name')).toHaveText(started)
    await expect(item.locator('.session-item-meta')).toHaveText('Shanghai')
  }
})

test('readings show the zone of the browser that sent the message', async ({ zones, servers }, testInfo) => {
  const server = await servers.start()
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  const id = await createSessionFromUi(shanghai)
  const newYork = await zones.open('America/New_York', shanghai.url())

  await sendMessage(newYork, 'Hello from New York')
  await waitForTurnEnds(server.url, id, 1)

  for (const page of [newYork, shanghai]) {
    const message = page.getByTestId('message-user')
    await expect(message).toHaveCount(1)
    await expect(message).toHaveAttribute('data-client-zone', 'America/New_York')
    await expect(message).toHaveAttribute('data-state', 'entered')
    await expect(message.locator('.msg-author')).toHaveText(page === newYork ? 'You' : 'New York')
    await expect(message).toContainText('Hello from New York')
    const card = readingCards(page)
    await expect(card).toHaveCount(1)
    await expect(card).toHaveAttribute('data-client-kind', 'resolved')
    await expect(card).toHaveAttribute('data-turn', '1')
    await expect(card).toHaveAttribute('data-step', '1')
    await expect(card.getByTestId('reading-chip')).toContainText('Shanghai · from New York')
    // a screen reader hears the parts apart, without the dots between them
    await expect(card.getByTestId('reading-chip')).toHaveAccessibleName(/^Time \d{1,2}:\d{2} [AP]M Shanghai from New York \(differs from the Session zone\)$/)
    await expect(card).toHaveAttribute('data-tone', 'warning')
    await expect(await clientZoneOf(card)).toHaveText('America/New_York')
    await expect(await readingSessionZoneOf(card)).toHaveText('Asia/Shanghai · UTC+08:00')
    await expect(page.getByTestId('message-assistant')).toContainText('your browser is in New York (America/New_York)')
    await expect(page.getByTestId('session-title')).toHaveText('Hello from New York')
    const item = page.locator(`[data-testid="session-item"][data-session-id="${id}"]`)
    await expect(item).toContainText('Hello from New York')
    // titled, the line says when it was started on the clock of the place it names, in either browser
    const { header } = await readSessionFile(server.dataDir, id)
    await expect(item.locator('.session-item-meta')).toHaveText(`Shanghai · started ${localClock(header.createdAt, 'Asia/Shanghai', 'en-US')}`)
    await expect(item).toHaveAccessibleName(`Hello from New York Shanghai started ${localClock(header.createdAt, 'Asia/Shanghai', 'en-US')}`)
  }

  await sendMessage(shanghai, 'And hello from Shanghai')
  await waitForTurnEnds(server.url, id, 2)
  const second = readingCards(shanghai).nth(1)
  await expect(second).toHaveAttribute('data-client-kind', 'resolved')
  await expect(second).toHaveAttribute('data-turn', '2')
  await expect(second).toHaveAttribute('data-tone', 'ok')
  await expect(await clientZoneOf(second)).toHaveText('Asia/Shanghai')
  await expect(shanghai.getByTestId('message-user').nth(1)).toHaveAttribute('data-client-zone', 'Asia/Shanghai')
  await shanghai.screenshot({ path: testInfo.outputPath('session-with-readings.png') })

  const { events } = await readSessionFile(server.dataDir, id)
  const sent = personMessages(events)
  expect(sent.map((event) => event.data.source)).toEqual([
    { kind: 'user', rpcId: expect.any(String), clientTimeZone: 'America/New_York' },
    { kind: 'user', rpcId: expect.any(String), clientTimeZone: 'Asia/Shanghai' },
  ])
  const readings = readingTexts(events)
  expect(readings).toHaveLength(2)
  expect(readings[0].split('\n')).toEqual([
    expect.stringMatching(/^Time sampled while preparing turn 1, step 1: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+08:00\[Asia\/Shanghai\]$/),
    'Session time zone: Asia/Shanghai.',
    'Client time zone for this request: America/New_York.',
    expect.stringMatching(/^Elapsed since the preceding model-visible message: \S+\.$/),
  ])
  expect(readings[1]).toContain('\nClient time zone for this request: Asia/Shanghai.\n')
})
