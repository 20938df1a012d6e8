import { mkdir, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateSession } from '../bench/generate.ts'
import { sendMessage } from './support/browser.ts'
import { expect, test } from './support/fixtures.ts'
import { fetchEvents, turnEnds } from './support/log.ts'

declare global {
  interface Window {
    /** The `data-index` of every conversation row on the page when the first message or reading row appeared. */
    __firstRows: number[] | null
  }
}

test('a long conversation opens at its last rows (the first rows put on the page are the ones in view), keeps the page small, and loads earlier pages as the person scrolls up, keeping their place; an earlier page that failed loads on Try again', async ({
  zones,
  servers,
}) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sw-e2e-long-'))
  await mkdir(join(dataDir, 'sessions'))
  generateSession({ path: join(dataDir, 'sessions', 'long.jsonl'), id: 'long', targetEvents: 1_600, seed: 20_261_203, sessionZone: 'Asia/Shanghai' })
  const server = await servers.start({ dataDir })
  const page = await zones.open('Asia/Shanghai')
  await page.addInitScript(() => {
    window.__firstRows = null
    new MutationObserver(() => {
      if (window.__firstRows !== null || document.querySelector('.virtual-row [data-testid^="message-"], .virtual-row [data-testid="reading"]') === null) return
      window.__firstRows = [...document.querySelectorAll('.virtual-row')].map((row) => Number(row.getAttribute('data-index')))
    }).observe(document, { childList: true, subtree: true })
  })
  await page.goto(`${server.url}/s/long`)
  const pane = page.getByRole('region', { name: 'Conversation' })
  await expect(pane.locator('.virtual-row').first()).toBeVisible()

  // the rows first put on the page are the last ones, at the bottom, in view: none of them is scrolled away at once
  const first = await page.evaluate(() => window.__firstRows)
  const shown = async () => page.evaluate(() => [...document.querySelectorAll('.virtual-row')].map((row) => Number(row.getAttribute('data-index'))))
  await expect.poll(async () => pane.evaluate((node) => Math.round(node.scrollHeight - node.scrollTop - node.clientHeight))).toBeLessThanOrEqual(1)
  const last = Math.max(...(await shown()))
  expect(first).not.toBeNull()
  expect(Math.max(...(first ?? []))).toBe(last)
  expect(Math.min(...(first ?? []))).toBeGreaterThan(last - 40)
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(3_000)

  // scrolling to the top loads the page before, and the row that was at the top stays where it was on screen
  const topRow = async () =>
    pane.evaluate((node) => {
      const top = node.getBoundingClientRect().top
      const rows = [...node.querySelectorAll<HTMLElement>('.virtual-row')].filter((row) => row.getBoundingClientRect().bottom > top)
      rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
      return { seq: Number(rows[0]?.getAttribute('data-seq')), offset: Math.round((rows[0]?.getBoundingClientRect().top ?? 0) - top) }
    })
  const offsetOf = async (seq: number) =>
    pane.evaluate((node, wanted) => {
      const row = node.querySelector<HTMLElement>(`.virtual-row[data-seq="${wanted}"]`)
      return row === null ? null : Math.round(row.getBoundingClientRect().top - node.getBoundingClientRect().top)
    }, seq)
  // the page before fails once: the notice says so over the rows, which stay put, and Try again loads it; that
  // second request is held back until the row at the top has been noted
  let failures = 1
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/events\?before=/, async (route) => {
    if (failures-- > 0) {
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'storage-unavailable', message: 'the store is not writable' } }) })
      return
    }
    await held
    await route.continue()
  })
  await pane.evaluate((node) => node.scrollTo({ top: 0 }))
  const notice = page.locator('.older')
  await expect(notice).toHaveText('Could not load earlier messages. Try again')
  const before = await topRow()
  await notice.getByRole('button', { name: 'Try again' }).click()
  await expect(notice).toHaveText('Loading earlier messages…')
  await expect(pane).toBeFocused()
  expect(await topRow()).toEqual(before)
  release()
  await expect(page.locator('.older')).toHaveCount(0)
  await expect.poll(async () => Math.min(...(await shown()))).toBeGreaterThan(0)
  await page.unroute(/\/events\?before=/)
  // the row that was at the top is where it was, with the rows of the page before above it
  expect(await offsetOf(before.seq)).toBe(before.offset)
  expect(await page.evaluate(() => document.querySelector('.conversation')?.scrollTop)).toBeGreaterThan(1_000)
  // and stays there once the rows around it have been measured
  await page.waitForTimeout(500)
  expect(Math.abs(((await offsetOf(before.seq)) ?? Infinity) - before.offset)).toBeLessThanOrEqual(1)

  // and on up to the first event of the log, the page still small
  // (each scroll to the top loads one earlier page: as many rounds as a slow machine needs, until the first row shown
  // is one of the log's first events and the top row is in view, not a fixed twenty rounds that may stop at the top of
  // a page still loading)
  await expect
    .poll(
      async () => {
        await pane.evaluate((node) => node.scrollTo({ top: 0 }))
        const firstSeq = await pane.evaluate((node) => Number(node.querySelector('.virtual-row[data-index="0"]')?.getAttribute('data-seq') ?? Infinity))
        // the log's first page loaded, and its first row in view
        return firstSeq < 50 && Math.min(...(await shown())) === 0
      },
      { timeout: 30_000, intervals: [150] },
    )
    .toBe(true)
  expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThan(3_000)

  // a message sent from up there is shown where it goes: the view goes to the bottom and follows the answer
  // (on the code before, the view stayed at the top and nothing said the message went)
  const lastSeq = async () => (await fetchEvents(server.url, 'long')).events.at(-1)?.seq ?? -1
  const sentAfter = await lastSeq()
  await sendMessage(page, 'sent from the top of the conversation')
  await expect(pane.getByTestId('message-user').filter({ hasText: 'sent from the top of the conversation' })).toBeInViewport()
  await expect.poll(async () => turnEnds((await fetchEvents(server.url, 'long')).events).filter((event) => event.seq > sentAfter).length).toBe(1)
  const answer = (await fetchEvents(server.url, 'long')).events.filter((event) => event.type === 'assistant/message').at(-1)
  expect(answer?.seq).toBeGreaterThan(sentAfter)
  await expect(pane.locator(`.virtual-row[data-seq="${answer?.seq}"]`)).toBeInViewport()
  await expect.poll(async () => pane.evaluate((node) => Math.round(node.scrollHeight - node.scrollTop - node.clientHeight))).toBeLessThanOrEqual(1)
})

test('an earlier page that could not load while the server was down loads by itself once it is back', async ({ zones, servers }) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sw-e2e-long-'))
  await mkdir(join(dataDir, 'sessions'))
  generateSession({ path: join(dataDir, 'sessions', 'long.jsonl'), id: 'long', targetEvents: 1_600, seed: 20_261_204, sessionZone: 'Asia/Shanghai' })
  const server = await servers.start({ dataDir })
  const page = await zones.open('Asia/Shanghai')
  await page.goto(`${server.url}/s/long`)
  const pane = page.getByRole('region', { name: 'Conversation' })
  await expect(pane.locator('.virtual-row').first()).toBeVisible()
  const lowest = async () => Math.min(...(await page.evaluate(() => [...document.querySelectorAll('.virtual-row')].map((row) => Number(row.getAttribute('data-index'))))))
  await expect.poll(async () => pane.evaluate((node) => Math.round(node.scrollHeight - node.scrollTop - node.clientHeight))).toBeLessThanOrEqual(1)

  await server.stop()
  await expect(page.getByTestId('offline-banner')).toBeVisible()
  await pane.evaluate((node) => node.scrollTo({ top: 0 }))
  const notice = page.locator('.older')
  await expect(notice).toHaveText('Could not load earlier messages. Try again')
  expect(await lowest()).toBe(0)
  const firstSeq = Number(await pane.locator('.virtual-row[data-index="0"]').getAttribute('data-seq'))

  // back on the same port: the overlay reconnects, and the page before comes in with no Try again
  servers.track(await server.restart({ samePort: true }))
  await expect(page.getByTestId('offline-banner')).toHaveCount(0)
  await expect(notice).toHaveCount(0)
  // the window starts earlier: the row that was first is no longer, and rows from before it are on the page
  await expect.poll(lowest).toBeGreaterThan(0)
  const seqs = await pane.locator('.virtual-row[data-seq]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-seq'))))
  expect(Math.min(...seqs)).toBeLessThan(firstSeq)
})

test('scrolling up quickly through rows not yet measured moves what is read by the wheel and no more, earlier pages coming in on the way', async ({ zones, servers }) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'sw-e2e-fling-'))
  await mkdir(join(dataDir, 'sessions'))
  generateSession({ path: join(dataDir, 'sessions', 'fling.jsonl'), id: 'fling', targetEvents: 1_600, seed: 20_261_204, sessionZone: 'Asia/Shanghai' })
  const server = await servers.start({ dataDir })
  const page = await zones.open('Asia/Shanghai')
  await page.goto(`${server.url}/s/fling`)
  const pane = page.getByRole('region', { name: 'Conversation' })
  await expect(pane.locator('.virtual-row').first()).toBeVisible()
  await expect.poll(async () => pane.evaluate((node) => Math.round(node.scrollHeight - node.scrollTop - node.clientHeight))).toBeLessThanOrEqual(1)
  const box = await pane.boundingBox()
  if (box === null) throw new Error('no conversation pane')
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  // the row at the top of the pane, and where it is on screen
  const probe = async () =>
    pane.evaluate((node) => {
      const rect = node.getBoundingClientRect()
      const row = document.elementFromPoint(rect.left + rect.width / 2, rect.top + 8)?.closest<HTMLElement>('.virtual-row[data-seq]')
      return row === null || row === undefined ? null : { seq: row.getAttribute('data-seq') ?? '', top: row.getBoundingClientRect().top, scrollTop: node.scrollTop }
    })
  const topOf = async (seq: string) => pane.evaluate((node, wanted) => node.querySelector(`.virtual-row[data-seq="${wanted}"]`)?.getBoundingClientRect().top ?? null, seq)
  const settled = async () => {
    let last = -1
    for (let i = 0; i < 40; i++) {
      const now = await pane.evaluate((node) => node.scrollTop)
      if (now === last) return
      last = now
      await page.waitForTimeout(60)
    }
  }
  const WHEEL = 400
  const moves: number[] = []
  let pages = 0
  page.on('request', (request) => {
    if (/\/events\?before=/.test(request.url())) pages++
  })
  for (let step = 0; step < 80; step++) {
    const before = await probe()
    if (before === null) continue
    if (before.scrollTop < WHEEL && !(await pane.locator('.older').isVisible())) break
    await page.mouse.wheel(0, -WHEEL)
    await settled()
    const top = await topOf(before.seq)
    if (top !== null && (await pane.evaluate((node) => node.scrollTop)) > 0) moves.push(Math.round(top - before.top))
  }
  expect(pages).toBeGreaterThan(0)
  expect(moves.length).toBeGreaterThan(20)
  // each wheel moved the row being read down by the wheel's length: rows measured as they came into view above it,
  // or an earlier page coming in, did not move it on (on the code before, 57 wheels moved it 361–441 px)
  expect(moves.filter((moved) => Math.abs(moved - WHEEL) > 2)).toEqual([])
})
