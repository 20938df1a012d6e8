import type { SessionView, ToolDefinition } from '../host/index.ts'
import type { ScheduleRecord, ScheduleView } from '../protocol/index.ts'
import type { ScheduleWriter } from './writer.ts'
import { createChange, decodeScheduleChange, deleteChange, scheduleChangeDraft, updateChange } from './changes.ts'
import {
  fail,
  internalError,
  isScheduleError,
  ok,
  persistenceUncertain,
  scheduleNotFound,
  type ScheduleError,
  type ScheduleOperation,
  type ScheduleResult,
} from './errors.ts'
import { findActive, nextScheduleId, NO_HISTORY, viewOf, views, type ActiveSchedule, type ScheduleHistory, type ScheduleState } from './fold.ts'
import { resolveImplicitZone } from './implicit-zone.ts'
import { createRecord, parseDeleteArgs, parseListArgs, parseUpdateArgs, resolveUpdate, type CreateContext } from './selectors.ts'
import { sessionScheduleFold } from './session-state.ts'
import { createArgsSchema, deleteArgsSchema, listArgsSchema, toolParameters, updateArgsSchema } from './tool-args.ts'

type ToolText = { text: string; isError?: boolean }

/** The outcome of a Schedule operation: a value, or the Schedule error that stopped it. */
export type ScheduleOutcome<T> = { ok: true } & T | { ok: false; error: ScheduleError }

function errorText(error: ScheduleError): ToolText {
  return { text: JSON.stringify(error.toToolError()), isError: true }
}

function currentState(session: SessionView) {
  return session.fold(sessionScheduleFold)
}

function sessionZone(session: SessionView): string | null {
  return session.header.timeZone ?? null
}

/** The view of a record just written: folded as the log will fold it, so its target and history match later lists. */
function writtenView(session: SessionView, id: string, now: number): ScheduleView | null {
  const current = currentState(session)
  if (!current.ok) return null
  const entry = findActive(current.state, id)
  return entry === undefined ? null : viewOf(entry, now, sessionZone(session))
}

/** The view of a record written to the log: as the log folds it while active, else the record alone (no history). */
export function recordView(session: SessionView, record: ScheduleRecord, now: number, history: ScheduleHistory | null = null): ScheduleView {
  return writtenView(session, record.id, now) ?? viewOf({ record, target: Date.parse(record.scheduledAt), history: history ?? NO_HISTORY }, now, sessionZone(session))
}

async function appendDurably(
  session: SessionView,
  record: ScheduleRecord,
  operation: Extract<ScheduleOperation, 'create' | 'update'>,
  now: number,
  history: ActiveSchedule['history'] | null,
): Promise<ScheduleOutcome<{ view: ScheduleView }>> {
  await session.append([scheduleChangeDraft(operation === 'create' ? createChange(record) : updateChange(record))])
  if (!(await session.flush())) return { ok: false, error: persistenceUncertain(operation) }
  return { ok: true, view: recordView(session, record, now, history) }
}

type RecordContext = { now: number; implicitZone: CreateContext['implicitZone'] }

/**
 * Whose change it is: the model's, in a turn whose readings may resolve a local time's zone (SPEC 7.2), or a
 * person's through the reminder routes, which never consult the implicit-zone rule (SPEC 7.9): a local time they
 * send without `time_zone` is refused as if no turn were open, whatever turn the Session is in.
 */
export type ChangeOrigin = 'model' | 'route'

/** Builds a record from the folded state under the writer's lock and appends it durably as a create or update. */
function writeRecord(
  session: SessionView,
  now: () => number,
  writer: ScheduleWriter,
  operation: Extract<ScheduleOperation, 'create' | 'update'>,
  origin: ChangeOrigin,
  build: (state: ScheduleState, context: RecordContext) => ScheduleResult<{ record: ScheduleRecord; history: ScheduleHistory | null }>,
): Promise<ScheduleOutcome<{ view: ScheduleView }>> {
  return writer.exclusive(session, async () => {
    const current = currentState(session)
    if (!current.ok) return { ok: false, error: current.error }
    const at = now()
    const events = origin === 'model' ? session.events() : []
    const built = build(current.state, { now: at, implicitZone: (subject) => resolveImplicitZone(session.header, events, subject) })
    if (!built.ok) return built
    return appendDurably(session, built.value.record, operation, at, built.value.history)
  })
}

/** Creates a reminder from tool arguments; answers only after the durability barrier. */
export function createSchedule(session: SessionView, args: unknown, now: () => number, writer: ScheduleWriter, origin: ChangeOrigin = 'model'): Promise<ScheduleOutcome<{ view: ScheduleView }>> {
  return writeRecord(session, now, writer, 'create', origin, (state, context) => {
    const record = createRecord(args, { ...context, nextId: nextScheduleId(state) })
    return record.ok ? ok({ record: record.value, history: null }) : record
  })
}

/** Changes an active reminder from `schedule_update` arguments, re-validated as on create (SPEC 7.8). */
export function updateSchedule(session: SessionView, args: unknown, now: () => number, writer: ScheduleWriter, origin: ChangeOrigin = 'model'): Promise<ScheduleOutcome<{ view: ScheduleView }>> {
  return writeRecord(session, now, writer, 'update', origin, (state, context) => {
    const parsed = parseUpdateArgs(args)
    if (!parsed.ok) return parsed
    const entry = findActive(state, parsed.value.id)
    if (entry === undefined) return fail(scheduleNotFound(parsed.value.id))
    const record = resolveUpdate(entry.record, parsed.value.fields, context)
    return record.ok ? ok({ record: record.value, history: entry.history }) : record
  })
}

/** The last prompt a reminder of this session had (null when it never existed), and whether it was deleted. */
function promptHistory(session: SessionView, id: string): { prompt: string | null; deleted: boolean } {
  let prompt: string | null = null
  let deleted = false
  for (const event of session.events()) {
    if (event.type !== 'schedule/change') continue
    const decoded = decodeScheduleChange(event.data)
    if (!decoded.ok) continue
    const { change } = decoded
    if ((change.operation === 'create' || change.operation === 'update') && change.schedule.id === id) prompt = change.schedule.prompt
    if (change.operation === 'delete' && change.id === id) deleted = true
  }
  return { prompt, deleted }
}

/** The prompt of a reminder this session ever had (active, finished or deleted), or null. */
export function promptOf(session: SessionView, id: string): string | null {
  return promptHistory(session, id).prompt
}

/** The Schedule changes of a session from `fromSeq` on, latest first. */
function* changesSince(session: SessionView, fromSeq: number) {
  const events = session.events()
  for (let i = events.length - 1; i >= 0 && events[i].seq >= fromSeq; i--) {
    const event = events[i]
    if (event.type !== 'schedule/change') continue
    const decoded = decodeScheduleChange(event.data)
    if (decoded.ok) yield decoded.change
  }
}

/** Whether a record is the one create fields ask for: the same prompt and kind, and the same period or rule. */
function madeFrom(record: ScheduleRecord, fields: Record<string, unknown>): boolean {
  if (typeof fields.prompt !== 'string' || record.prompt !== fields.prompt.trim()) return false
  switch (record.kind) {
    case 'after':
      return record.afterSeconds === fields.after_seconds
    case 'at':
      return fields.at !== undefined
    case 'every':
      return record.everySeconds === fields.every_seconds
    case 'calendar':
      return record.rrule === fields.rrule
  }
}

/**
 * For a create run again after its first runner died before answering (SPEC 14.3): the reminder that run
 * already made — created from `fromSeq` on with the same prompt, kind and period or rule — as it is now; else null.
 */
export function createdSince(session: SessionView, fromSeq: number, fields: Record<string, unknown>, now: number): ScheduleView | null {
  for (const change of changesSince(session, fromSeq)) {
    if (change.operation === 'create' && madeFrom(change.schedule, fields)) return recordView(session, change.schedule, now)
  }
  return null
}

/** For a delete run again after its first runner died before answering: whether that run deleted the reminder (from `fromSeq` on). */
export function deletedSince(session: SessionView, fromSeq: number, id: string): boolean {
  for (const change of changesSince(session, fromSeq)) if (change.operation === 'delete' && change.id === id) return true
  return false
}

/**
 * The prompt of a reminder a Snooze may make again: one active, or finished by its deliveries (a fired `at` is
 * snoozed from its due card); null for one deleted or never made.
 */
function snoozablePrompt(session: SessionView, id: string): string | null {
  const { prompt, deleted } = promptHistory(session, id)
  return deleted ? null : prompt
}

/**
 * Snoozes a reminder (SPEC 7.9): a new `after` reminder with the same prompt, `seconds` from now. A deleted or
 * unknown one is `schedule_not_found`, read under the writer's lock so that a delete beside it cannot slip between.
 */
export function snoozeSchedule(
  session: SessionView,
  id: string,
  seconds: number,
  now: () => number,
  writer: ScheduleWriter,
): Promise<ScheduleOutcome<{ view: ScheduleView }>> {
  return writeRecord(session, now, writer, 'create', 'route', (state, context) => {
    const prompt = snoozablePrompt(session, id)
    if (prompt === null) return fail(scheduleNotFound(id))
    const record = createRecord({ prompt, after_seconds: seconds }, { ...context, nextId: nextScheduleId(state) })
    return record.ok ? ok({ record: record.value, history: null }) : record
  })
}

/** Deletes an active reminder; unknown or finished ids answer deleted: false. */
export async function deleteSchedule(
  session: SessionView,
  id: string,
  writer: ScheduleWriter,
): Promise<ScheduleOutcome<{ id: string; deleted: boolean }>> {
  return writer.exclusive(session, async () => {
    const current = currentState(session)
    if (!current.ok) return { ok: false, error: current.error }
    if (!findActive(current.state, id)) return { ok: true, id, deleted: false }
    await session.append([scheduleChangeDraft(deleteChange(id))])
    if (!(await session.flush())) return { ok: false, error: persistenceUncertain('delete') }
    return { ok: true, id, deleted: true }
  })
}

/** Active reminders of a session as views, or the corruption error. */
export function listSchedules(session: SessionView, now: number): ScheduleOutcome<{ schedules: ScheduleView[] }> {
  const current = currentState(session)
  return current.ok ? { ok: true, schedules: views(current.state, now, sessionZone(session)) } : { ok: false, error: current.error }
}

async function guarded(run: () => Promise<ToolText>): Promise<ToolText> {
  try {
    return await run()
  } catch (error) {
    if (isScheduleError(error)) return errorText(error)
    return errorText(internalError())
  }
}

/** The four tools offered to the model (SPEC 7.1, 7.7, 7.8). */
export function scheduleTools(now: () => number, writer: ScheduleWriter): ToolDefinition[] {
  return [
    {
      name: 'schedule_create',
      description:
        'Create a reminder in this session. Give exactly one of after_seconds, at, every_seconds or rrule. For a local wall time use at = {date: "YYYY-MM-DD", time: "HH:mm:ss"} and add time_zone (IANA) unless the person clearly means the Session time zone. For "every weekday at 08:30", "every day at 9", "on the 1st of each month" use rrule (wall times in time_zone, kept across DST). If the tool answers timezone_confirmation_required, ask the person which zone they mean. Confirm times from scheduledAtLocal in words, never as a bare UTC instant.',
      parameters: toolParameters(createArgsSchema),
      execute: (args, ctx) =>
        guarded(async () => {
          const result = await createSchedule(ctx.session, args, now, writer)
          return result.ok ? { text: JSON.stringify({ schedule: result.view }) } : errorText(result.error)
        }),
    },
    {
      name: 'schedule_update',
      description:
        'Change an active reminder by id: its prompt, its selector (at most one of after_seconds, at, every_seconds, rrule), time_zone, starts or catch_up. The changed reminder is validated as on create.',
      parameters: toolParameters(updateArgsSchema),
      execute: (args, ctx) =>
        guarded(async () => {
          const result = await updateSchedule(ctx.session, args, now, writer)
          return result.ok ? { text: JSON.stringify({ schedule: result.view }) } : errorText(result.error)
        }),
    },
    {
      name: 'schedule_list',
      description: 'List the active reminders of this session in creation order.',
      parameters: toolParameters(listArgsSchema),
      execute: (args, ctx) =>
        guarded(async () => {
          const parsed = parseListArgs(args)
          if (!parsed.ok) return errorText(parsed.error)
          const result = listSchedules(ctx.session, now())
          return result.ok ? { text: JSON.stringify({ schedules: result.schedules }) } : errorText(result.error)
        }),
    },
    {
      name: 'schedule_delete',
      description: 'Delete an active reminder by its id (schedule-<n>).',
      parameters: toolParameters(deleteArgsSchema),
      execute: (args, ctx) =>
        guarded(async () => {
          const parsed = parseDeleteArgs(args)
          if (!parsed.ok) return errorText(parsed.error)
          const result = await deleteSchedule(ctx.session, parsed.value.id, writer)
          if (!result.ok) return errorText(result.error)
          return {
            text: JSON.stringify(
              result.deleted ? { id: result.id, deleted: true } : { id: result.id, deleted: false, code: 'schedule_not_found' },
            ),
          }
        }),
    },
  ]
}
