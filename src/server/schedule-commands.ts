import type { CommandContext, Host, SessionView } from '../host/index.ts'
import type { EarlierRequest, ScheduleService, ServiceResult } from '../schedule/index.ts'

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
  // a create, snooze or delete run again after the owner that first ran it died before answering answers
  // what that run did, instead of making a second reminder (or answering that the deleted one is not found)
  const once = <T>(session: SessionView, context: CommandContext, request: EarlierRequest, run: () => Promise<T>): Promise<T | ScheduleAnswer | { id: string; deleted: true }> => {
    const earlier = context.rerunFrom === null ? null : service.earlier(session, context.rerunFrom, request)
    if (earlier === null) return run()
    return Promise.resolve('ok' in earlier ? packed(earlier) : earlier)
  }
  host.registerCommand('schedule.list', async (session) => service.list(session))
  host.registerCommand('schedule.delete', async (session, args, context) => {
    const { id } = args as { id: string }
    return once(session, context, { operation: 'delete', id }, () => service.delete(session, id))
  })
  host.registerCommand('schedule.create', async (session, args, context) => {
    const fields = args as Record<string, unknown>
    return once(session, context, { operation: 'create', fields }, async () => packed(await service.create(session, fields)))
  })
  host.registerCommand('schedule.update', async (session, args) => {
    const { id, fields } = args as { id: string; fields: Record<string, unknown> }
    return packed(await service.update(session, id, fields))
  })
  host.registerCommand('schedule.snooze', async (session, args, context) => {
    const { id, seconds } = args as { id: string; seconds: number }
    return once(session, context, { operation: 'snooze', id, seconds }, async () => packed(await service.snooze(session, id, seconds)))
  })
}
