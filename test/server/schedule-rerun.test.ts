import { describe, expect, it } from 'vitest'
import { compose } from '../../src/server/compose.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'

/** A real session on JSONL files, with the Schedule service the reminder routes use. */
async function setup() {
  const clock = new FakeClock(Date.parse('2026-07-15T06:00:00Z'))
  const { host, schedules } = await compose({ dataDir: await tempDir(), model: 'offline', clock, timers: new ManualTimers(), log: () => undefined })
  const { session } = await host.createSession({ id: 's', timeZone: 'Europe/Berlin' })
  /** The durable event count: what a forwarded command notes when it starts. */
  const count = () => session.events().length
  return { host, schedules, session, clock, count }
}

describe('what a command run again after its owner died finds of its first run (SPEC 14.3)', () => {
  it('finds the reminder a create or a snooze made from the count it started at, and nothing for another request or a later start', async () => {
    const { host, schedules, session, clock, count } = await setup()
    const before = count()
    const created = await schedules.create(session, { prompt: ' stand up ', after_seconds: 3600 })
    if (!created.ok) throw created.error
    expect(created.view).toMatchObject({ id: 'schedule-1', kind: 'after', prompt: 'stand up', afterSeconds: 3600 })
    clock.advance(1000)
    const later = (await schedules.list(session))[0]
    expect(schedules.earlier(session, before, { operation: 'create', fields: { prompt: ' stand up ', after_seconds: 3600 } })).toEqual({ ok: true, view: later })
    expect(schedules.earlier(session, before, { operation: 'create', fields: { prompt: 'stand up', after_seconds: 600 } })).toBeNull()
    expect(schedules.earlier(session, before, { operation: 'create', fields: { prompt: 'sit down', after_seconds: 3600 } })).toBeNull()
    expect(schedules.earlier(session, before, { operation: 'create', fields: { prompt: 'stand up', every_seconds: 3600 } })).toBeNull()
    expect(schedules.earlier(session, count(), { operation: 'create', fields: { prompt: 'stand up', after_seconds: 3600 } })).toBeNull()

    const beforeSnooze = count()
    const snoozed = await schedules.snooze(session, 'schedule-1', 600)
    if (!snoozed.ok) throw snoozed.error
    expect(schedules.earlier(session, beforeSnooze, { operation: 'snooze', id: 'schedule-1', seconds: 600 })).toEqual({ ok: true, view: snoozed.view })
    expect(schedules.earlier(session, beforeSnooze, { operation: 'snooze', id: 'schedule-1', seconds: 900 })).toBeNull()
    expect(schedules.earlier(session, beforeSnooze, { operation: 'snooze', id: 'schedule-9', seconds: 600 })).toBeNull()
    await host.close()
  })

  it('finds that a delete already deleted its reminder, and a create whose reminder is gone since as it was made', async () => {
    const { host, schedules, session, count } = await setup()
    const first = count()
    const created = await schedules.create(session, { prompt: 'water the plants', rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', time_zone: 'Europe/Berlin' })
    if (!created.ok) throw created.error
    const beforeDelete = count()
    expect(await schedules.delete(session, 'schedule-1')).toEqual({ id: 'schedule-1', deleted: true })
    expect(schedules.earlier(session, beforeDelete, { operation: 'delete', id: 'schedule-1' })).toEqual({ id: 'schedule-1', deleted: true })
    expect(schedules.earlier(session, count(), { operation: 'delete', id: 'schedule-1' })).toBeNull()
    expect(schedules.earlier(session, first, { operation: 'delete', id: 'schedule-2' })).toBeNull()
    expect(schedules.earlier(session, first, { operation: 'create', fields: { prompt: 'water the plants', rrule: 'FREQ=DAILY;BYHOUR=9;BYMINUTE=0', time_zone: 'Europe/Berlin' } })).toEqual({
      ok: true,
      view: created.view,
    })
    await host.close()
  })
})
