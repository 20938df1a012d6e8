import { describe, expect, it } from 'vitest'
import { parseIntent } from '../../src/server/offline-model.ts'
import { createApp } from '../../src/server/app.ts'
import { compose } from '../../src/server/compose.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { parseReadingText, type ReadingFields } from '../../src/protocol/reading-text.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { settle, waitFor } from '../support/host-harness.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'

const berlinReading = parseReadingText(
  'Time sampled while preparing turn 1, step 1: 2026-07-15T08:00:00+02:00[Europe/Berlin]\nSession time zone: Europe/Berlin.\nClient time zone for this request: Europe/Berlin.\nElapsed since the preceding model-visible message: unavailable.',
) as ReadingFields
const NOW = Date.parse('2026-07-15T06:00:00Z')

describe('offline model intents', () => {
  it.each([
    ['remind me at 09:30 to stretch', { kind: 'create', args: { prompt: 'stretch', at: { date: '2026-07-15', time: '09:30:00' } } }],
    ['remind me at 07:15 to stretch', { kind: 'create', args: { prompt: 'stretch', at: { date: '2026-07-16', time: '07:15:00' } } }],
    ['remind me tomorrow at 9 to call mum', { kind: 'create', args: { prompt: 'call mum', at: { date: '2026-07-16', time: '09:00:00' } } }],
    ['remind me at 2pm to eat', { kind: 'create', args: { prompt: 'eat', at: { date: '2026-07-15', time: '14:00:00' } } }],
    ['remind me at 09:30 America/New_York to join the call', { kind: 'create', args: { prompt: 'join the call', at: { date: '2026-07-15', time: '09:30:00', time_zone: 'America/New_York' } } }],
    ['remind me in 10 minutes to check the oven', { kind: 'create', args: { prompt: 'check the oven', after_seconds: 600 } }],
    ['remind me every 15 minutes to drink water', { kind: 'create', args: { prompt: 'drink water', every_seconds: 900 } }],
    ['list reminders', { kind: 'list' }],
    ['please delete schedule-2', { kind: 'delete', id: 'schedule-2' }],
    ['hello there', { kind: 'none' }],
  ])('reads %j', (text, intent) => {
    expect(parseIntent(text, berlinReading, NOW)).toEqual(intent)
  })
})

function assistantTexts(events: readonly SessionEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'assistant/message' && e.data.content[0].text !== '' ? [e.data.content[0].text] : []))
}

async function setup() {
  const dir = await tempDir()
  const clock = new FakeClock(Date.parse('2026-07-15T06:00:00Z'))
  const timers = new ManualTimers()
  const { host, schedules } = await compose({ dataDir: dir, model: 'offline', clock, timers, log: () => undefined })
  const app = createApp({ host, schedules })
  const post = (path: string, body: unknown) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await post('/api/sessions', { sessionId: 'berlin', timeZone: 'Europe/Berlin' })
  const session = await host.openSession('berlin')
  return { host, app, post, session, clock, timers }
}

describe('offline model through the API', () => {
  it('creates a local reminder without a zone question when the browser is in the Session zone, then relays it when due', async () => {
    const { host, app, post, session, clock, timers } = await setup()
    expect((await post('/api/sessions/berlin/messages', { text: 'remind me at 08:30 to stretch', clientTimeZone: 'Europe/Berlin' })).status).toBe(202)
    await settle(session)
    expect(assistantTexts(session.events())).toEqual(['Done: reminder schedule-1 "stretch" is set for 2026-07-15T06:30:00.000Z.'])
    const list = await (await app.request('/api/sessions/berlin/schedules')).json()
    expect(list).toEqual({
      schedules: [{ id: 'schedule-1', kind: 'at', prompt: 'stretch', scheduledAt: '2026-07-15T06:30:00.000Z', state: 'scheduled', deliveryMode: 'session-local' }],
    })
    clock.advance(30 * 60_000)
    timers.fireAll()
    await waitFor(session, (events) => assistantTexts(events).length === 2)
    await settle(session)
    expect(assistantTexts(session.events())[1]).toBe('Reminder: stretch')
    expect(await (await app.request('/api/sessions/berlin/schedules')).json()).toEqual({ schedules: [] })
    await host.close()
  })

  it('asks which zone is meant when the browser is in another zone, and creates nothing', async () => {
    const { host, app, post, session } = await setup()
    await post('/api/sessions/berlin/messages', { text: 'remind me at 08:30 to stretch', clientTimeZone: 'America/New_York' })
    await settle(session)
    expect(assistantTexts(session.events())).toEqual([
      'Which time zone do you mean for that time? This Session\'s time zone is Europe/Berlin; your browser reports America/New_York. Known zones: Europe/Berlin, America/New_York. Please say it again with the zone, for example "remind me at 09:30 Europe/Berlin to stretch".',
    ])
    expect(await (await app.request('/api/sessions/berlin/schedules')).json()).toEqual({ schedules: [] })
    await host.close()
  })

  it('deletes a reminder through the API', async () => {
    const { host, app, post, session } = await setup()
    await post('/api/sessions/berlin/messages', { text: 'remind me in 10 minutes to stretch', clientTimeZone: 'Europe/Berlin' })
    await settle(session)
    const del = await app.request('/api/sessions/berlin/schedules/schedule-1', { method: 'DELETE' })
    expect([del.status, await del.json()]).toEqual([200, { id: 'schedule-1', deleted: true }])
    const again = await app.request('/api/sessions/berlin/schedules/schedule-1', { method: 'DELETE' })
    expect([again.status, await again.json()]).toEqual([200, { id: 'schedule-1', deleted: false }])
    expect(session.events().filter((e) => e.type === 'schedule/change').map((e) => e.data.operation)).toEqual(['create', 'delete'])
    await host.close()
  })
})
