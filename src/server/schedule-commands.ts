import type { CommandContext, Host, SessionView } from '../host/index.ts'
import type { EarlierRequest, ScheduleService, ServiceResult } from '../schedule/index.ts'
import { KeyedRequests } from './keyed-requests.ts'

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
  const keyed = new KeyedRequests()
  const made = (answer: ScheduleAnswer): string | null => (answer.ok ? (answer.view as { id: string }).id : null)
  // a create, snooze or delete run again after the owner that first ran it died before answering answers
  // what that run did, instead of making a second reminder (or answering that the deleted one is not found)
  const once = <T>(session: SessionView, context: CommandContext, request: EarlierRequest, run: () => Promise<T>): Promise<T | ScheduleAnswer | { id: string; deleted: true }> => {
    const earlier = context.rerunFrom === null ? null : service.earlier(session, context.rerunFrom, request)
    if (earlier === null) return run()
    return Promise.resolve('ok' in earlier ? packed(earlier) : earlier)
  }
  // a list answers from the durable log while the session's storage is unavailable
  host.registerQuery('schedule.list', async (session) => service.list(session))
  host.registerCommand('schedule.delete', async (session, args, context) => {
    const { id, key } = args as { id: string; key?: string }
    const request: EarlierRequest = { operation: 'delete', id }
    return keyed.once(session.id, key, request, () => id, () => once(session, context, request, () => service.delete(session, id)))
  })
  host.registerCommand('schedule.create', async (session, args, context) => {
    const { fields, key } = args as { fields: Record<string, unknown>; key?: string }
    const request: EarlierRequest = { operation: 'create', fields }
    return keyed.once(session.id, key, request, made, async () => (await once(session, context, request, async () => packed(await service.create(session, fields)))) as ScheduleAnswer)
  })
  host.registerCommand('schedule.update', async (session, args) => {
    const { id, fields, key } = args as { id: string; fields: Record<string, unknown>; key?: string }
    return keyed.once(session.id, key, { operation: 'update', id, fields }, made, async () => packed(await service.update(session, id, fields)))
  })
  // every browser snoozing one occurrence sends the same key: a repeat answers the snooze as it is now, which the
  // assistant may have moved since the first answer ("snooze 30 min"); once that snooze is no longer active (deleted,
  // or come due), a Snooze pressed again snoozes the occurrence anew
  const current = (session: SessionView, answer: ScheduleAnswer): ScheduleAnswer | null => {
    if (!answer.ok) return answer
    const id = (answer.view as { id: string }).id
    const now = service.list(session).find((view) => view.id === id)
    return now === undefined ? null : { ok: true, view: now }
  }
  host.registerCommand('schedule.snooze', async (session, args, context) => {
    const { id, seconds, key } = args as { id: string; seconds: number; key?: string }
    const request: EarlierRequest = { operation: 'snooze', id, seconds }
    return keyed.once(
      session.id,
      key,
      request,
      made,
      async () => (await once(session, context, request, async () => packed(await service.snooze(session, id, seconds)))) as ScheduleAnswer,
      (first) => current(session, first),
    )
  })
}
