import type { Plugin, SessionView } from '../host/plugin-api.ts'
import type { ScheduleView } from '../protocol/wire.ts'
import { ScheduleOwner, realTimers, type Timers } from './owner.ts'
import { sessionScheduleFold } from './session-state.ts'
import { deleteSchedule, listSchedules, scheduleTools } from './tools.ts'
import { ScheduleWriter } from './writer.ts'

/** What the server needs of Schedule for its routes. */
export interface ScheduleService {
  list(session: SessionView): ScheduleView[]
  delete(session: SessionView, scheduleId: string): Promise<{ id: string; deleted: boolean }>
}

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
      ctx.onAppend((session, event) => {
        if (event.type === 'schedule/change') live.arm(session)
      })
      ctx.signal.addEventListener('abort', () => live.stop(), { once: true })
    },
  }
}
