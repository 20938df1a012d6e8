import { chromium, type Browser, type Page } from '@playwright/test'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureOverlayBuilt } from '../src/server/overlay-build.ts'
import { startServer, type TestServer } from '../e2e/support/server.ts'
import { generateSession } from './generate.ts'
import { fmt, median, percentile, sizeLabel } from './measure.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ZONE = 'Asia/Shanghai'
const SEED = 20_260_706

/** What the overlay bench measured for one Session size. */
export type UiRow = {
  events: number
  /** Median ms from the events request's start to the first conversation row in the DOM, the Session opened from the list. */
  firstRenderMs: number
  /** The floor: the page's own fetch as it happened (request start to last byte) plus JSON-parsing its body, median ms. */
  fetchParseMs: number
  /** The same page fetched and parsed again once the page is quiet, median ms (a second, lower floor). */
  refetchParseMs: number
  /** DOM elements once the conversation shows, and after scrolling up through every page. */
  domNodes: number
  domNodesAllLoaded: number
  /** Milliseconds from a message's event arriving on the stream to the message in the DOM (median and p95). */
  latencyP50: number
  latencyP95: number
}

/** The overlay figures (SPEC 12.1): first render, DOM size and new-message latency per Session size. */
export type UiFigures = { rows: UiRow[]; renders: number; messages: number }

declare global {
  interface Window {
    __arrivals: Map<string, number>
    __seen: Map<string, number>
    __firstRow: number
  }
}

/** Records, inside the page, when stream chunks carrying a marker arrive and when the marker's text enters the DOM. */
function instrument(): void {
  window.__arrivals = new Map()
  window.__seen = new Map()
  window.__firstRow = -1
  const marker = /bench-marker-[0-9a-z]+/g
  const original = window.fetch.bind(window)
  window.fetch = async (input, init) => {
    const response = await original(input, init)
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (!url.includes('/stream') || response.body === null) return response
    const decoder = new TextDecoder()
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const at = performance.now()
        for (const match of decoder.decode(chunk, { stream: true }).match(marker) ?? []) if (!window.__arrivals.has(match)) window.__arrivals.set(match, at)
        controller.enqueue(chunk)
      },
    })
    return new Response(response.body.pipeThrough(tap), { status: response.status, statusText: response.statusText, headers: response.headers })
  }
  new MutationObserver((records) => {
    const at = performance.now()
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (!(node instanceof HTMLElement)) continue
        if (window.__firstRow < 0 && node.querySelector('[data-testid^="message-"], [data-testid="reading"]') !== null) window.__firstRow = at
        for (const match of node.textContent?.match(marker) ?? []) if (!window.__seen.has(match)) window.__seen.set(match, at)
      }
    }
  }).observe(document, { childList: true, subtree: true })
}

/** Opens the Session from the list of a page showing another one (its first render with the app already running), and times it. */
async function firstRender(browser: Browser, url: string, id: string, via: string): Promise<{ render: number; floor: number; refetch: number; nodes: number; page: Page }> {
  const context = await browser.newContext({ timezoneId: ZONE, locale: 'en-US', viewport: { width: 1280, height: 860 } })
  await context.addInitScript(instrument)
  const page = await context.newPage()
  await page.goto(`${url}/s/${via}`)
  await page.waitForFunction(() => window.__firstRow >= 0)
  await page.waitForTimeout(500)
  await page.evaluate(() => {
    window.__firstRow = -1
  })
  await page.locator(`[data-testid="session-item"][data-session-id="${id}"]`).click()
  await page.waitForFunction(() => window.__firstRow >= 0)
  await page.waitForTimeout(300)
  const measured = await page.evaluate(async (sessionId) => {
    const entry = performance
      .getEntriesByType('resource')
      .find((e) => e.name.includes(`/api/sessions/${sessionId}/events?limit=`)) as PerformanceResourceTiming | undefined
    if (entry === undefined) throw new Error('no events request seen')
    const start = performance.now()
    const text = await (await fetch(entry.name, { headers: { accept: 'application/json' } })).text()
    const parseStart = performance.now()
    const body: unknown = JSON.parse(text)
    const parsed = performance.now()
    if (typeof body !== 'object' || body === null) throw new Error('events page did not parse')
    return {
      render: window.__firstRow - entry.startTime,
      floor: entry.responseEnd - entry.startTime + (parsed - parseStart),
      refetch: parsed - start,
      nodes: document.getElementsByTagName('*').length,
    }
  }, id)
  return { ...measured, page }
}

async function scrollToStart(page: Page): Promise<number> {
  const pane = page.getByRole('region', { name: 'Conversation' })
  for (let round = 0; round < 200; round++) {
    const done = await pane.evaluate((node) => {
      node.scrollTop = 0
      node.dispatchEvent(new Event('scroll'))
      return node.scrollHeight
    })
    await page.waitForTimeout(120)
    const again = await pane.evaluate((node) => node.scrollHeight)
    if (again === done && (await page.locator('.older').count()) === 0) {
      const atStart = await page.evaluate(() => document.querySelector('.conversation')?.scrollTop === 0)
      if (atStart) break
    }
  }
  const first = await page.evaluate(() => Number(document.querySelector('.virtual-row[data-index="0"]')?.getAttribute('data-seq') ?? NaN))
  if (!(first < 50)) throw new Error(`scrolling up did not reach the start of the conversation (first row seq ${first})`)
  return page.evaluate(() => document.getElementsByTagName('*').length)
}

async function post(url: string, id: string, text: string): Promise<void> {
  const response = await fetch(`${url}/api/sessions/${id}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, clientTimeZone: ZONE }),
  })
  if (response.status !== 202) throw new Error(`message answered ${response.status}`)
}

async function latency(page: Page, url: string, id: string, count: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < count; i++) {
    const marker = `bench-marker-${i.toString(36)}x${Date.now().toString(36)}`
    await post(url, id, `Latency probe ${marker}`)
    await page.waitForFunction((m) => window.__seen.has(m) && window.__arrivals.has(m), marker, { timeout: 20_000 })
    out.push(await page.evaluate((m) => (window.__seen.get(m) ?? NaN) - (window.__arrivals.get(m) ?? NaN), marker))
    await page.waitForFunction(() => document.querySelector('[data-testid="session-status"]')?.getAttribute('data-status') === 'idle', undefined, { timeout: 20_000 })
  }
  return out
}

/** Generates Sessions of each size into a data dir, serves them with a real server, and measures the overlay in headless Chromium. */
export async function measureUi(options: { sizes?: number[]; renders?: number; messages?: number; log?: (line: string) => void } = {}): Promise<UiFigures> {
  const sizes = options.sizes ?? [100, 10_000]
  const renders = options.renders ?? 5
  const messages = options.messages ?? 15
  const log = options.log ?? (() => undefined)
  await ensureOverlayBuilt(root, log)
  const dataDir = await mkdtemp(join(tmpdir(), 'schedule-web-ui-bench-'))
  await mkdir(join(dataDir, 'sessions'), { recursive: true })
  let server: TestServer | null = null
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  })
  try {
    for (const size of sizes) {
      generateSession({ path: join(dataDir, 'sessions', `ui-${sizeLabel(size)}.jsonl`), id: `ui-${sizeLabel(size)}`, targetEvents: size, seed: SEED + size, sessionZone: ZONE })
    }
    server = await startServer({ dataDir })
    const rows: UiRow[] = []
    for (const size of sizes) {
      const id = `ui-${sizeLabel(size)}`
      const warm = await fetch(`${server.url}/api/sessions/${id}/events?limit=1`)
      const { eventCount } = (await warm.json()) as { eventCount?: number }
      const runs: Array<{ render: number; floor: number; refetch: number; nodes: number }> = []
      let last: Page | null = null
      for (let r = 0; r < renders; r++) {
        const run = await firstRender(browser, server.url, id, `ui-${sizeLabel(sizes[0])}` === id ? `ui-${sizeLabel(sizes[1] ?? sizes[0])}` : `ui-${sizeLabel(sizes[0])}`)
        runs.push(run)
        if (r < renders - 1) await run.page.context().close()
        else last = run.page
      }
      const page = last as Page
      const lat = await latency(page, server.url, id, messages)
      const allLoaded = await scrollToStart(page)
      await page.context().close()
      const row: UiRow = {
        events: eventCount ?? size,
        firstRenderMs: median(runs.map((r) => r.render)),
        fetchParseMs: median(runs.map((r) => r.floor)),
        refetchParseMs: median(runs.map((r) => r.refetch)),
        domNodes: median(runs.map((r) => r.nodes)),
        domNodesAllLoaded: allLoaded,
        latencyP50: median(lat),
        latencyP95: percentile(lat, 95),
      }
      rows.push(row)
      log(`ui ${sizeLabel(size)}: first render ${fmt(row.firstRenderMs)} ms vs fetch+parse ${fmt(row.fetchParseMs)} ms, ${row.domNodes} DOM nodes (${row.domNodesAllLoaded} with every page loaded), new message p50 ${fmt(row.latencyP50)} ms p95 ${fmt(row.latencyP95)} ms`)
    }
    return { rows, renders, messages }
  } finally {
    await browser.close()
    await server?.dispose()
    await rm(dataDir, { recursive: true, force: true })
  }
}

/** The overlay table and one PASS/FAIL line per SPEC 12.1 overlay target. */
export function renderUiReport(figures: UiFigures): string {
  const { rows } = figures
  const out = [
    `Overlay in headless Chromium (real server, generated Sessions; median of ${figures.renders} first renders of a Session opened from the list, ${figures.messages} new messages each):`,
    '| events | first render (ms) | its fetch + parse (ms) | render / fetch+parse | repeat fetch + parse (ms) | render / repeat | DOM nodes | DOM nodes, every page loaded | new message p50 (ms) | p95 (ms) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.events} | ${fmt(r.firstRenderMs)} | ${fmt(r.fetchParseMs)} | ${fmt(r.firstRenderMs / r.fetchParseMs, 2)} | ${fmt(r.refetchParseMs)} | ${fmt(r.firstRenderMs / r.refetchParseMs, 2)} | ${r.domNodes} | ${r.domNodesAllLoaded} | ${fmt(r.latencyP50)} | ${fmt(r.latencyP95)} |`,
    ),
    '',
  ]
  const big = rows[rows.length - 1]
  const small = rows[0]
  const renderRatio = big.firstRenderMs / big.fetchParseMs
  const latencyRatio = big.latencyP50 / small.latencyP50
  out.push(
    `${renderRatio <= 3 ? 'PASS' : 'FAIL'} overlay first render at ${big.events} events / the fetch and parse of its page = ${fmt(renderRatio, 2)} (target ≤ 3; against a repeat fetch+parse once quiet: ${fmt(big.firstRenderMs / big.refetchParseMs, 2)})`,
  )
  out.push(`${Math.max(big.domNodes, big.domNodesAllLoaded) < 3000 ? 'PASS' : 'FAIL'} overlay DOM nodes at ${big.events} events = ${big.domNodes}, ${big.domNodesAllLoaded} with every page loaded (target < 3,000)`)
  out.push(`${latencyRatio <= 1.5 && big.latencyP50 <= 50 && small.latencyP50 <= 50 ? 'PASS' : 'FAIL'} overlay new-message latency p50 at ${big.events} / at ${small.events} events = ${fmt(latencyRatio, 2)} (${fmt(big.latencyP50)} ms / ${fmt(small.latencyP50)} ms; target ≤ 1.5, and ≤ 50 ms each)`)
  return out.join('\n')
}
