import type { Plugin, SessionView } from '../host/index.ts'
import type { ScheduleView } from '../protocol/index.ts'
import type { ScheduleError } from './errors.ts'
import { ScheduleOwner, realTimers, type Timers } from './owner.ts'
import { nextDueAt } from './fold.ts'
import { sessionScheduleFold } from './session-state.ts'
import { createdSince, createSchedule, deletedSince, deleteSchedule, listSchedules, promptOf, scheduleTools, snoozeSchedule, updateSchedule } from './tools.ts'
import { ScheduleWriter } from './writer.ts'

/** A reminder view, or the Schedule error that prevented the change. */
export type ServiceResult = { ok: true; view: ScheduleView } | { ok: false; error: ScheduleError }

/** What the server needs of Schedule for its routes (SPEC 8, 7.9): the same domain code as the tools. */
export interface ScheduleService {
  list(session: SessionView): ScheduleView[]
  delete(session: SessionView, scheduleId: string): Promise<{ id: string; deleted: boolean }>
  /** Creates a reminder from `schedule_create`-shaped fields. */
  create(session: SessionView, fields: Record<string, unknown>): Promise<ServiceResult>
  /** Changes an active reminder from `schedule_update`-shaped fields (without `id`). */
  update(session: SessionView, scheduleId: string, fields: Record<string, unknown>): Promise<ServiceResult>
  /** A new `after` reminder with the prompt of `scheduleId` (active or delivered, not deleted), `seconds` from now. */
  snooze(session: SessionView, scheduleId: string, seconds: number): Promise<ServiceResult>
  /**
   * What a create, snooze or delete run again after its first runner died before answering (SPEC 14.3) had already
   * done from `fromSeq` on: the reminder it made, or that it deleted `id` (null when it did nothing, so it runs again).
   */
  earlier(session: SessionView, fromSeq: number, request: EarlierRequest): ServiceResult | { id: string; deleted: true } | null
}

/** A request whose earlier run a rerun looks for. */
export type EarlierRequest =
  | { operation: 'create'; fields: Record<string, unknown> }
  | { operation: 'snooze'; id: string; seconds: number }
  | { operation: 'delete'; id: string }

/** The Schedule plugin plus the service its HTTP routes use. */
export type SchedulePlugin = Plugin & { readonly service: ScheduleService }

/** Schedule (SPEC 7): tools, durable changes, and live delivery of due reminders. */
export function createSchedulePlugin(options: { timers?: Timers } = {}): SchedulePlugin {
  const writer = new ScheduleWriter()
  let now: () => number = () => Date.now()
  const service: ScheduleService = {
    list(session) {
      const result = listSchedules(session, now())
      return result.ok ? result.schedules : []
    },
    async delete(session, scheduleId) {
      const result = await deleteSchedule(session, scheduleId, writer)
      if (!result.ok) throw result.error
      return { id: result.id, deleted: result.deleted }
    },
    // the routes' changes: a local time comes with the zone picked on screen, never from the open turn (SPEC 7.9)
    create: (session, fields) => createSchedule(session, fields, () => now(), writer, 'route'),
    update: (session, scheduleId, fields) => updateSchedule(session, { ...fields, id: scheduleId }, () => now(), writer, 'route'),
    snooze: (session, scheduleId, seconds) => snoozeSchedule(session, scheduleId, seconds, () => now(), writer),
    earlier(session, fromSeq, request) {
      if (request.operation === 'delete') return deletedSince(session, fromSeq, request.id) ? { id: request.id, deleted: true } : null
      const prompt = request.operation === 'snooze' ? promptOf(session, request.id) : null
      const fields = request.operation === 'create' ? request.fields : { prompt, after_seconds: request.seconds }
      const view = createdSince(session, fromSeq, fields, now())
      return view === null ? null : { ok: true, view }
    },
  }
  return {
    name: 'schedule',
    service,
    install(ctx) {
      now = () => ctx.clock.now()
      const live = new ScheduleOwner(ctx.clock, writer, options.timers ?? realTimers, (line) => ctx.log(line))
      ctx.registerFold(sessionScheduleFold)
      for (const tool of scheduleTools(now, writer)) ctx.registerTool(tool)
      ctx.onSessionOpen((session) => live.arm(session))
      ctx.onSessionClose((session) => live.forget(session.id))
      ctx.provideNextDue((folds) => {
        const current = folds.fold(sessionScheduleFold)
        return current.ok ? nextDueAt(current.state) : null
      })
      ctx.onAppend((session, event) => {
        if (event.type === 'schedule/change') live.arm(session)
      })
      ctx.signal.addEventListener('abort', () => live.stop(), { once: true })
    },
  }
}
