export {
  ScheduleError,
  isScheduleError,
  persistenceUncertain,
  internalError,
  scheduleNotFound,
  type ScheduleErrorCode,
  type ScheduleErrorDetailsMap,
  type ScheduleOperation,
  type ScheduleResult,
  type ScheduleToolError,
} from './errors.ts'
export {
  MIN_INSTANT_MS,
  MAX_INSTANT_MS,
  parseRfc3339,
  parseLocalDate,
  parseLocalTime,
  localToInstant,
  checkTarget,
  toScheduledAt,
  parseCanonicalInstant,
  type LocalDate,
  type LocalTime,
  type LocalDateTime,
} from './absolute-time.ts'
export {
  createRecord,
  parseCreateArgs,
  resolveCreateRequest,
  parseUpdateArgs,
  resolveUpdate,
  parseListArgs,
  parseDeleteArgs,
  type CreateContext,
  type CreateRequest,
  type CalendarRequest,
  type LocalAt,
  type UpdateArgs,
} from './selectors.ts'
export { createArgsSchema, updateArgsSchema, listArgsSchema, deleteArgsSchema, toolParameters } from './tool-args.ts'
export { occurrencesBetween, occurrencesAfter, firstOccurrenceAfter, type CalendarSpec, type Occurrence } from './calendar.ts'
export { planCatchUp, MAX_CATCH_UP, SKIP_GRACE_MS, type CatchUpPlan, type DueSeries } from './catch-up.ts'
export { resolveImplicitZone, type ImplicitZoneResult } from './implicit-zone.ts'
export { type EveryRecord } from './recurrence.ts'
export { MIN_EVERY_SECONDS } from '../protocol/index.ts'
export {
  scheduleId,
  scheduleIdNumber,
  createChange,
  updateChange,
  deleteChange,
  dispatchChange,
  scheduleChangeDraft,
  decodeScheduleChange,
  type CreateChange,
  type UpdateChange,
  type DeleteChange,
  type DispatchChange,
  type ScheduleChange,
  type DecodedChange,
} from './changes.ts'
export {
  emptyScheduleState,
  nextScheduleId,
  findActive,
  applyScheduleEvent,
  foldSchedule,
  viewOf,
  views,
  nextDueAt,
  dueOccurrences,
  dueSeries,
  viewZone,
  NO_HISTORY,
  type ActiveSchedule,
  type ScheduleHistory,
  type DueOccurrence,
  type ScheduleState,
} from './fold.ts'
export { sessionScheduleFold, type SessionScheduleState } from './session-state.ts'
export { createSchedule, updateSchedule, snoozeSchedule, deleteSchedule, listSchedules, promptOf, scheduleTools } from './tools.ts'
export { ScheduleOwner, MAX_TIMER_MS, CLOCK_CHECK_MS, realTimers, followUpBlocks, type Timers } from './owner.ts'
export { ScheduleWriter } from './writer.ts'
export { createSchedulePlugin, type EarlierRequest, type SchedulePlugin, type ScheduleService, type ServiceResult } from './plugin.ts'
