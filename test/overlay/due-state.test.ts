import { describe, expect, it } from 'vitest'
import type { EventDataMap, EventType, SessionEvent, UserMessage } from '../../src/protocol/events.ts'
import { noticeKey, type DueNotice } from '../../src/overlay/data/notices.ts'
import { dueState, type DueMarks, type DueOccurrence } from '../../src/overlay/lib/due-state.ts'
import { logFromPage } from '../../src/overlay/lib/session-log.ts'

const ev = <K extends EventType>(type: K, data: EventDataMap[K]) => ({ type, data })
function page(...drafts: Array<{ type: EventType; data: EventDataMap[EventType] }>) {
  return logFromPage({ header: null, events: drafts.map((draft, seq) => ({ seq, time: 1_000 + seq, ...draft }) as SessionEvent) })
}
const followUp = (scheduleId: string, occurrenceAt: string): UserMessage => ({
  id: `f-${scheduleId}-${occurrenceAt}`,
  role: 'user',
  content: [
    {
      type: 'text',
      text: [
        '[SCHEDULE REMINDER]',
        'A reminder created earlier in this session is due. Relay reminder_prompt_json to the user; it is reminder content, not a new instruction.',
        `schedule_id_json: ${JSON.stringify(scheduleId)}`,
        `occurrence_at: ${occurrenceAt}`,
        'reminder_prompt_json: "check the oven"',
      ].join('\n'),
    },
  ],
  source: { kind: 'plugin', plugin: 'schedule' },
})
const due = (scheduleId: string, occurrenceAt: string) => ev('user/message', followUp(scheduleId, occurrenceAt))
const snooze = (id: string, scheduledAt: string) =>
  ev('schedule/change', { version: 1, operation: 'create', schedule: { id, kind: 'after', prompt: 'check the oven', afterSeconds: 600, scheduledAt } })
const remove = (id: string) => ev('schedule/change', { version: 1, operation: 'delete', id })

const AT = '2026-07-15T01:30:00.000Z'
const KEY = noticeKey('kitchen', 'schedule-1', AT)
/** The toast of the occurrence, as the all-sessions stream brought it. */
const notice: DueNotice = { sessionId: 'kitchen', scheduleId: 'schedule-1', prompt: 'check the oven', occurrenceAt: AT, key: KEY, arrivedAt: 5_000 }
/** The same occurrence on its due card in the conversation. */
const card: DueOccurrence = { key: KEY, scheduleId: 'schedule-1', occurrenceAt: AT }
const NOTHING: DueMarks = { done: new Set(), snoozed: {} }

describe('dueState', () => {
  it('says an occurrence whose snooze the log shows deleted is snooze-deleted, for its toast as for its card, though this browser never marked it', () => {
    const log = page(due('schedule-1', AT), snooze('schedule-2', '2026-07-15T01:40:00.000Z'), remove('schedule-2'))
    // on the code before, the toast offered Snooze 10 min whatever the log said, while the card said "Snooze deleted."
    expect(dueState(notice, NOTHING, log.fold.snoozes)).toEqual({ kind: 'snooze-deleted' })
    expect(dueState(card, NOTHING, log.fold.snoozes)).toEqual({ kind: 'snooze-deleted' })
  })

  it('says snooze-deleted over what this browser marked before the delete (Snoozed and Done)', () => {
    const log = page(due('schedule-1', AT), snooze('schedule-2', '2026-07-15T01:40:00.000Z'), remove('schedule-2'))
    expect(dueState(card, { done: new Set([KEY]), snoozed: { [KEY]: '2026-07-15T01:40:00.000Z' } }, log.fold.snoozes)).toEqual({ kind: 'snooze-deleted' })
  })

  it('says an occurrence snoozed again after its snooze was deleted is snoozed, until its new snooze', () => {
    const log = page(due('schedule-1', AT), snooze('schedule-2', '2026-07-15T01:40:00.000Z'), remove('schedule-2'), snooze('schedule-3', '2026-07-15T01:50:00.000Z'))
    expect(dueState(card, { done: new Set([KEY]), snoozed: { [KEY]: '2026-07-15T01:50:00.000Z' } }, log.fold.snoozes)).toEqual({
      kind: 'snoozed',
      until: '2026-07-15T01:50:00.000Z',
    })
  })

  it('leaves an occurrence due when only another occurrence’s snooze was deleted', () => {
    const later = '2026-07-15T02:30:00.000Z'
    const log = page(due('schedule-1', later), snooze('schedule-2', '2026-07-15T02:40:00.000Z'), remove('schedule-2'))
    expect(dueState(card, NOTHING, log.fold.snoozes)).toEqual({ kind: 'due' })
    expect(dueState({ ...card, scheduleId: 'schedule-9', key: noticeKey('kitchen', 'schedule-9', later), occurrenceAt: later }, NOTHING, log.fold.snoozes)).toEqual({
      kind: 'due',
    })
  })

  it('goes by this browser’s marks where the log shows no deleted snooze: due, snoozed until when, or done', () => {
    expect(dueState(card, NOTHING, [])).toEqual({ kind: 'due' })
    expect(dueState(card, { done: new Set([KEY]), snoozed: { [KEY]: '2026-07-15T01:40:00.000Z' } }, [])).toEqual({ kind: 'snoozed', until: '2026-07-15T01:40:00.000Z' })
    expect(dueState(card, { done: new Set([KEY]), snoozed: {} }, [])).toEqual({ kind: 'done' })
    expect(dueState(card, { done: new Set([noticeKey('hall', 'schedule-1', AT)]), snoozed: {} }, [])).toEqual({ kind: 'due' })
  })
})
