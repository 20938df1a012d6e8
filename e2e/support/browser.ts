import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { CspWatch } from './csp.ts'
import { fetchEvents, turnEnds } from './log.ts'

/** Browser contexts of one test, one per time zone, closed together. */
export class ZoneBrowsers {
  private readonly contexts: BrowserContext[] = []
  /** CSP violations and unprotected documents of every context opened here. */
  readonly csp = new CspWatch()

  constructor(private readonly browser: Browser) {}

  /** A page in a fresh context whose clock runs in `timeZone` (Playwright `timezoneId`), watched for CSP violations. */
  async open(timeZone: string, url?: string): Promise<Page> {
    const context = await this.browser.newContext({ timezoneId: timeZone, locale: 'en-US', viewport: { width: 1280, height: 860 } })
    this.contexts.push(context)
    await this.csp.attach(context)
    const page = await context.newPage()
    if (url !== undefined) await page.goto(url)
    return page
  }

  /** Closes every context opened through this object. */
  async closeAll(): Promise<void> {
    await Promise.all(this.contexts.splice(0).map((context) => context.close()))
  }
}

const SESSION_URL = /\/s\/([A-Za-z0-9_-]{1,64})$/

/** The Session id the page's URL names. */
export function sessionIdOf(page: Page): string {
  const match = SESSION_URL.exec(new URL(page.url()).pathname)
  if (match === null) throw new Error(`no session in ${page.url()}`)
  return match[1]
}

/** Clicks "New session" the way a person does and answers the new Session's id once its view is open. */
export async function createSessionFromUi(page: Page): Promise<string> {
  await page.getByTestId('new-session').click()
  await page.waitForURL(SESSION_URL)
  await expect(page.getByTestId('session-status')).toBeVisible()
  return sessionIdOf(page)
}

/** Types a message and sends it (`send` queues, `steer` steers the running turn); resolves once the server accepted it. */
export async function sendMessage(page: Page, text: string, how: 'send' | 'steer' = 'send'): Promise<void> {
  const input = page.getByTestId('composer-input')
  await input.fill(text)
  await page.getByTestId(how === 'send' ? 'composer-send' : 'composer-steer').click()
  await expect(input).toHaveValue('')
}

/** Polls the events API until `count` turns have ended; answers the events. */
export async function waitForTurnEnds(url: string, id: string, count: number, timeout = 30_000): Promise<SessionEvent[]> {
  let events: SessionEvent[] = []
  await expect
    .poll(
      async () => {
        events = (await fetchEvents(url, id)).events
        return turnEnds(events).length
      },
      { timeout, message: `waiting for ${count} turn/end events in ${id}` },
    )
    .toBeGreaterThanOrEqual(count)
  return events
}

/** The reading cards of a page. */
export function readingCards(page: Page) {
  return page.getByTestId('reading')
}

/** The value shown under the "Client zone" label of a reading card. */
export function clientZoneOf(card: ReturnType<Page['getByTestId']>) {
  return card.locator('dt:text-is("Client zone") + dd')
}

/** The value shown under the "Session zone" label of a reading card. */
export function readingSessionZoneOf(card: ReturnType<Page['getByTestId']>) {
  return card.locator('dt:text-is("Session zone") + dd')
}

/** `HH:MM` a few minutes after now on the wall clock of `timeZone`. */
export function wallClockAhead(timeZone: string, minutes: number, now = Date.now()): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    new Date(now + minutes * 60_000),
  )
  const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? '00'
  return `${get('hour')}:${get('minute')}`
}
