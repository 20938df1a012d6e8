import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { CspWatch } from './csp.ts'
import { fetchEvents, turnEnds } from './log.ts'

/** How a test browser differs from an en-US desktop one. */
export type ContextOptions = {
  locale?: string
  viewport?: { width: number; height: number }
  colorScheme?: 'light' | 'dark'
  permissions?: string[]
}

/** The phone screen of the browser scenarios (SPEC 9 "Every screen"). */
export const PHONE = { width: 390, height: 844 }

/** Browser contexts of one test, one per time zone, closed together. */
export class ZoneBrowsers {
  private readonly contexts: BrowserContext[] = []
  /** CSP violations and unprotected documents of every context opened here. */
  readonly csp = new CspWatch()

  constructor(private readonly browser: Browser) {}

  /** A page in a fresh context whose clock runs in `timeZone` (Playwright `timezoneId`), en-US on a light desktop screen unless told otherwise, watched for CSP violations. */
  async open(timeZone: string, url?: string, options: ContextOptions = {}): Promise<Page> {
    const context = await this.browser.newContext({
      timezoneId: timeZone,
      locale: options.locale ?? 'en-US',
      viewport: options.viewport ?? { width: 1280, height: 860 },
      colorScheme: options.colorScheme ?? 'light',
      permissions: options.permissions,
    })
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
  const before = page.url()
  await page.getByTestId('new-session').click()
  await page.waitForURL((url) => SESSION_URL.test(url.pathname) && url.href !== before)
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

type Card = ReturnType<Page['getByTestId']>

/** Opens a reading chip to its four fields (a person's click), unless it is open already. */
export async function expandReading(card: Card): Promise<Card> {
  const chip = card.getByTestId('reading-chip')
  if ((await chip.getAttribute('aria-expanded')) !== 'true') await chip.click()
  await expect(chip).toHaveAttribute('aria-expanded', 'true')
  return card
}

/** The value shown under the "Client zone" label of an expanded reading. */
export async function clientZoneOf(card: Card) {
  return (await expandReading(card)).locator('dt:text-is("Client zone") + dd')
}

/** The value shown under the "Session zone" label of an expanded reading. */
export async function readingSessionZoneOf(card: Card) {
  return (await expandReading(card)).locator('dt:text-is("Session zone") + dd')
}

/** The time of day as a locale writes it on its own clock (`2:07 PM` en-US, `14:07` de-DE). */
export function localClock(instant: number | string, timeZone: string, locale: string): string {
  const twelve = ['h11', 'h12'].includes(new Intl.DateTimeFormat(locale, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '')
  return new Intl.DateTimeFormat(locale, { timeZone, hour: twelve ? 'numeric' : '2-digit', minute: '2-digit' }).format(new Date(instant))
}

/** `HH:MM` a few minutes after now on the wall clock of `timeZone`. */
export function wallClockAhead(timeZone: string, minutes: number, now = Date.now()): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(
    new Date(now + minutes * 60_000),
  )
  const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? '00'
  return `${get('hour')}:${get('minute')}`
}

/** Checks a zone shown as a place (`Shanghai`) carries its canonical IANA id in `data-time-zone` and its `title`. */
export async function expectZone(zone: Card, id: string, place: string): Promise<void> {
  await expect(zone).toHaveText(place)
  await expect(zone).toHaveAttribute('data-time-zone', id)
  await expect(zone).toHaveAttribute('title', new RegExp(`^${id.replace(/[/+]/g, '\\$&')} · UTC`))
}
