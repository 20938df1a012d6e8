import type { Page } from '@playwright/test'
import { expect, test } from './support/fixtures.ts'
import { clientZoneOf, createSessionFromUi, expectZone, readingCards, sendMessage, waitForTurnEnds } from './support/browser.ts'
import { fetchEvents, fetchSchedules, readSessionFile } from './support/log.ts'

/** What a person sees of a Session: zones, messages with their zones, readings, answers and reminders. */
async function visibleState(page: Page) {
  const users = page.getByTestId('message-user')
  const readings = readingCards(page)
  const reminders = page.getByTestId('reminder')
  return {
    sessionZone: await page.getByTestId('session-zone').textContent(),
    browserZone: await page.getByTestId('browser-zone').textContent(),
    disagreement: await page.getByTestId('zone-disagreement').count(),
    users: await users.evaluateAll((nodes) =>
      nodes.map((node) => [node.getAttribute('data-client-zone'), node.getAttribute('data-state'), node.querySelector('.msg-text')?.textContent]),
    ),
    readings: await readings.evaluateAll((nodes) =>
      nodes.map((node) => [node.getAttribute('data-turn'), node.getAttribute('data-step'), node.getAttribute('data-client-kind'), node.textContent]),
    ),
    answers: await page.getByTestId('message-assistant').locator('.msg-text').allTextContents(),
    reminders: await reminders.evaluateAll((nodes) =>
      nodes.map((node) => [node.getAttribute('data-schedule-id'), node.querySelector('.reminder-prompt')?.textContent, node.querySelector('[data-testid="reminder-own-time"]')?.textContent]),
    ),
  }
}

test('conversation, zones and reminders survive a server restart', async ({ zones, servers }, testInfo) => {
  let server = await servers.start()
  const shanghai = await zones.open('Asia/Shanghai', server.url)
  const id = await createSessionFromUi(shanghai)
  const path = new URL(shanghai.url()).pathname
  const newYork = await zones.open('America/New_York', shanghai.url())

  await sendMessage(shanghai, 'Good morning from Shanghai')
  await waitForTurnEnds(server.url, id, 1)
  await sendMessage(newYork, 'remind me in 30 minutes to water the plants')
  await waitForTurnEnds(server.url, id, 2)

  await expect(shanghai.getByTestId('reminder')).toHaveCount(1)
  await expect(newYork.getByTestId('reminder')).toHaveCount(1)
  await expect(shanghai.getByTestId('message-assistant')).toHaveCount(2)
  await expect(readingCards(shanghai)).toHaveCount(2)
  const before = { shanghai: await visibleState(shanghai), newYork: await visibleState(newYork) }
  expect(before.shanghai.users).toEqual([
    ['Asia/Shanghai', 'entered', 'Good morning from Shanghai'],
    ['America/New_York', 'entered', 'remind me in 30 minutes to water the plants'],
  ])
  expect(before.shanghai.reminders).toEqual([['schedule-1', 'water the plants', expect.stringContaining('· Shanghai')]])
  expect(before.newYork.disagreement).toBe(1)
  const fileBefore = await readSessionFile(server.dataDir, id)
  const schedulesBefore = await fetchSchedules(server.url, id)
  expect(schedulesBefore).toEqual([expect.objectContaining({ id: 'schedule-1', prompt: 'water the plants', state: 'scheduled' })])

  const oldUrl = server.url
  server = servers.track(await server.restart())
  expect(server.url).not.toBe(oldUrl)

  for (const page of [shanghai, newYork]) {
    await page.goto(`${server.url}${path}`)
    await expect(page.getByTestId('session-status')).toHaveAttribute('data-status', 'idle')
    await expect(page.getByTestId('message-assistant')).toHaveCount(2)
    await expect(readingCards(page)).toHaveCount(2)
    await expect(page.getByTestId('reminder')).toHaveCount(1)
  }
  await expectZone(shanghai.getByTestId('session-zone'), 'Asia/Shanghai', 'Shanghai')
  await expect(shanghai.getByTestId('zone-disagreement')).toHaveCount(0)
  await expectZone(newYork.getByTestId('session-zone'), 'Asia/Shanghai', 'Shanghai')
  await expectZone(newYork.getByTestId('browser-zone'), 'America/New_York', 'New York')
  await expect(newYork.getByTestId('zone-disagreement')).toBeVisible()
  const after = { shanghai: await visibleState(shanghai), newYork: await visibleState(newYork) }
  expect(after).toEqual(before)
  await expect(await clientZoneOf(readingCards(newYork).nth(1))).toHaveText('America/New_York')
  await newYork.screenshot({ path: testInfo.outputPath('after-restart.png') })

  const fileAfter = await readSessionFile(server.dataDir, id)
  expect(fileAfter.lines).toEqual(fileBefore.lines)
  expect(fileAfter.header.timeZone).toBe('Asia/Shanghai')
  const served = await fetchEvents(server.url, id)
  expect(served.header).toEqual(fileBefore.header)
  expect(served.events).toEqual(fileBefore.events)
  expect(await fetchSchedules(server.url, id)).toEqual([{ ...schedulesBefore[0], state: 'scheduled' }])
})
