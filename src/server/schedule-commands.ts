import type { Host } from '../host/index.ts'
import type { ScheduleService, ServiceResult } from '../schedule/index.ts'

/** A Schedule answer as it travels between replicas: the view, or the domain error's code, message and details. */
export type ScheduleAnswer =
  | { ok: true; view: unknown }
  | { ok: false; error: { code: string; message: string; details: Record<string, unknown> } }

function packed(result: ServiceResult): ScheduleAnswer {
  if (result.ok) return { ok: true, view: result.view }
  return { ok: false, error: { code: result.error.code, message: result.error.message, details: { ...result.error.details } } }
}

/**
 * Registers the reminder routes' work (SPEC 7.9, 8) as host commands, so that a route on any
 * replica runs it on the replica that holds the session (SPEC 14.3).
 */
export function registerScheduleCommands(host: Host, service: ScheduleService): void {
  host.registerCommand('schedule.list', async (session) => service.list(session))
  host.registerCommand('schedule.delete', async (session, args) => service.delete(session, (args as { id: string }).id))
  host.registerCommand('schedule.create', async (session, args) => packed(await service.create(session, args as Record<string, unknown>)))
  host.registerCommand('schedule.update', async (session, args) => {
    const { id, fields } = args as { id: string; fields: Record<string, unknown> }
    return packed(await service.update(session, id, fields))
  })
  host.registerCommand('schedule.snooze', async (session, args) => {
    const { id, seconds } = args as { id: string; seconds: number }
    return packed(await service.snooze(session, id, seconds))
  })
}
