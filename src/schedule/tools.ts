import type { SessionView, ToolDefinition } from '../host/plugin-api.ts'
import type { ScheduleView } from '../protocol/wire.ts'
import type { ScheduleWriter } from './writer.ts'
import { createChange, deleteChange, scheduleChangeDraft } from './changes.ts'
import { internalError, isScheduleError, persistenceUncertain, type ScheduleError } from './errors.ts'
import { findActive, nextScheduleId, viewOf, views } from './fold.ts'
import { resolveImplicitZone } from './implicit-zone.ts'
import { createRecord, parseDeleteArgs, parseListArgs } from './selectors.ts'
import { sessionScheduleFold } from './session-state.ts'

type ToolText = { text: string; isError?: boolean }

function errorText(error: ScheduleError): ToolText {
  return { text: JSON.stringify(error.toToolError()), isError: true }
}

function currentState(session: SessionView) {
  return session.fold(sessionScheduleFold)
}

/** Creates a reminder from tool arguments; answers only after the durability barrier. */
export async function createSchedule(
  session: SessionView,
  args: unknown,
  now: () => number,
  writer: ScheduleWriter,
): Promise<{ ok: true; view: ScheduleView } | { ok: false; error: ScheduleError }> {
  return writer.exclusive(session, async () => {
    const current = currentState(session)
    if (!current.ok) return { ok: false, error: current.error }
    const at = now()
    const record = createRecord(args, {
      now: at,
      nextId: nextScheduleId(current.state),
      implicitZone: () => resolveImplicitZone(session.header, session.events()),
    })
    if (!record.ok) return record
    await session.append([scheduleChangeDraft(createChange(record.value))])
    if (!(await session.flush())) return { ok: false, error: persistenceUncertain('create') }
    return { ok: true, view: viewOf(record.value, at) }
  })
}

/** Deletes an active reminder; unknown or finished ids answer deleted: false. */
export async function deleteSchedule(
  session: SessionView,
  id: string,
  writer: ScheduleWriter,
): Promise<{ ok: true; id: string; deleted: boolean } | { ok: false; error: ScheduleError }> {
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
export function listSchedules(session: SessionView, now: number): { ok: true; schedules: ScheduleView[] } | { ok: false; error: ScheduleError } {
  const current = currentState(session)
  return current.ok ? { ok: true, schedules: views(current.state, now) } : { ok: false, error: current.error }
}

async function guarded(run: () => Promise<ToolText>): Promise<ToolText> {
  try {
    return await run()
  } catch (error) {
    if (isScheduleError(error)) return errorText(error)
    return errorText(internalError())
  }
}

const PROMPT_SCHEMA = { type: 'string', description: 'What to remind the person of, in their words.' }

/** The three tools offered to the model (SPEC 7.1). */
export function scheduleTools(now: () => number, writer: ScheduleWriter): ToolDefinition[] {
  return [
    {
      name: 'schedule_create',
      description:
        'Create a reminder in this session. Give exactly one of after_seconds, at or every_seconds. For a local wall time use at = {date: "YYYY-MM-DD", time: "HH:mm:ss"} and add time_zone (IANA) unless the person clearly means the Session time zone; if the tool answers timezone_confirmation_required, ask the person which zone they mean.',
      parameters: {
        type: 'object',
        additionalProperties: false,
        required: ['prompt'],
        properties: {
          prompt: PROMPT_SCHEMA,
          after_seconds: { type: 'integer', minimum: 1, description: 'Remind once after this many seconds.' },
          at: {
            description: 'Remind once at an absolute time: an RFC 3339 timestamp with offset, or a local date and time.',
            anyOf: [
              { type: 'string', description: 'YYYY-MM-DDTHH:mm:ss(.sss)?(Z|±HH:MM)' },
              {
                type: 'object',
                additionalProperties: false,
                required: ['date', 'time'],
                properties: {
                  date: { type: 'string', description: 'YYYY-MM-DD' },
                  time: { type: 'string', description: 'HH:mm:ss' },
                  time_zone: { type: 'string', description: 'IANA time zone, e.g. Europe/Berlin' },
                },
              },
            ],
          },
          every_seconds: { type: 'integer', minimum: 300, description: 'Remind repeatedly at this interval (at least 300).' },
        },
      },
      execute: (args, ctx) =>
        guarded(async () => {
          const result = await createSchedule(ctx.session, args, now, writer)
          return result.ok ? { text: JSON.stringify({ schedule: result.view }) } : errorText(result.error)
        }),
    },
    {
      name: 'schedule_list',
      description: 'List the active reminders of this session in creation order.',
      parameters: { type: 'object', additionalProperties: false, properties: {} },
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
      parameters: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: { id: { type: 'string', description: 'The reminder id, e.g. schedule-2.' } },
      },
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
