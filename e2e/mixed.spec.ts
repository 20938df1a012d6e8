import { expect, test } from './support/fixtures.ts'
import { clientZoneOf, createSessionFromUi, expectZone, readingCards, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { personMessages, readingTexts, readSessionFile, turnEnds } from './support/log.ts'

/** Step 1 stays open long enough for a second browser to steer into it; step 2 answers at once. */
const STEP_ONE_MS = 8_000

test('two browsers in two zones steering one open turn produce a mixed reading', async ({ zones, servers }, testInfo) => {
  const server = await servers.start({
    script: [{ text: 'Thinking about Shanghai.', delayMs: STEP_ONE_MS }, { text: 'Both of you are heard.' }],
  })
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  const id = await createSessionFromUi(shanghai)
  const newYork = await zones.open('America/New_York', shanghai.url())
  await expectZone(newYork.getByTestId('session-zone'), 'Asia/Shanghai', 'Shanghai')

  await sendMessage(shanghai, 'Plan my evening')
  await expect(newYork.getByTestId('session-status')).toHaveAttribute('data-status', 'running')
  await expect(newYork.getByTestId('composer-steer')).toBeVisible()
  await expect(newYork.getByTestId('cancel-turn')).toBeVisible()
  await sendMessage(newYork, 'Also plan my morning', 'steer')

  const step2 = (page: typeof shanghai) => readingCards(page).and(page.locator('[data-turn="1"][data-step="2"]'))
  for (const page of [shanghai, newYork]) {
    const first = readingCards(page).first()
    await expect(first).toHaveAttribute('data-client-kind', 'resolved')
    await expect(await clientZoneOf(first)).toHaveText('Asia/Shanghai')

    const mixed = step2(page)
    await expect(mixed).toBeVisible({ timeout: STEP_ONE_MS + 10_000 })
    await expect(mixed).toHaveAttribute('data-client-kind', 'mixed')
    await expect(mixed).toHaveAttribute('data-tone', 'warning')
    await expect(mixed.getByTestId('reading-chip')).toContainText('from New York and Shanghai')
    await expect(await clientZoneOf(mixed)).toContainText('mixed')
    await expect(await clientZoneOf(mixed)).toContainText('America/New_York, Asia/Shanghai')
    await expect(mixed).toContainText('Messages in this turn came from different zones; local times are ambiguous.')

    const steered = page.getByTestId('message-user').filter({ hasText: 'Also plan my morning' })
    await expect(steered).toHaveAttribute('data-client-zone', 'America/New_York')
    await expect(steered).toContainText('steer')
    await expect(page.getByTestId('message-assistant').last()).toHaveText(/Both of you are heard\./)
    await expect(page.getByTestId('session-status')).toHaveAttribute('data-status', 'idle')
  }
  await step2(newYork).scrollIntoViewIfNeeded()
  await newYork.screenshot({ path: testInfo.outputPath('mixed-reading.png') })

  const events = await waitForTurnEnds(server.url, id, 1)
  expect(turnEnds(events).map((event) => event.data)).toEqual([{ turn: 1, reason: 'completed' }])
  const { events: onDisk } = await readSessionFile(server.dataDir, id)
  expect(personMessages(onDisk).map((event) => [event.data.source, event.data.content[0].text])).toEqual([
    [{ kind: 'user', rpcId: expect.any(String), clientTimeZone: 'Asia/Shanghai' }, 'Plan my evening'],
    [{ kind: 'user', rpcId: expect.any(String), clientTimeZone: 'America/New_York' }, 'Also plan my morning'],
  ])
  const readings = readingTexts(onDisk)
  expect(readings).toHaveLength(2)
  expect(readings[0]).toContain('turn 1, step 1:')
  expect(readings[0]).toContain('\nClient time zone for this request: Asia/Shanghai.\n')
  expect(readings[1].split('\n')).toEqual([
    expect.stringMatching(/^Time sampled while preparing turn 1, step 2: .+\+08:00\[Asia\/Shanghai\]$/),
    'Session time zone: Asia/Shanghai.',
    'Client time zone for this request: mixed ["America/New_York","Asia/Shanghai"].',
    expect.stringMatching(/^Elapsed since the preceding step context: \S+\.$/),
  ])
  const steerAt = onDisk.findIndex((event) => event.type === 'user/message' && event.data.content[0].text === 'Also plan my morning')
  expect(onDisk[steerAt - 1]).toMatchObject({ type: 'step/start', data: { turn: 1, step: 2 } })
  expect(onDisk.find((event) => event.type === 'inbox/enqueued' && event.data.message.content[0].text === 'Also plan my morning')).toMatchObject({
    data: { target: 'next-step' },
  })
})
