export {
  ScheduleError,
  isScheduleError,
  persistenceUncertain,
  internalError,
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
  parseListArgs,
  parseDeleteArgs,
  type CreateContext,
  type CreateRequest,
  type LocalAt,
} from './selectors.ts'
export { resolveImplicitZone, type ImplicitZoneResult } from './implicit-zone.ts'
export { MIN_EVERY_SECONDS, dueOccurrence, nextTarget, type DueOccurrence, type EveryRecord } from './recurrence.ts'
export {
  scheduleId,
  scheduleIdNumber,
  createChange,
  deleteChange,
  dispatchChange,
  scheduleChangeDraft,
  decodeScheduleChange,
  type CreateChange,
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
  type ScheduleState,
} from './fold.ts'
export {
  FOLLOW_UP_HEADER,
  FOLLOW_UP_INSTRUCTION,
  FOLLOW_UP_BLOCK_SEPARATOR,
  formatFollowUp,
  followUpMessage,
  parseFollowUp,
  type FollowUpReminder,
} from './follow-up.ts'
export { sessionScheduleFold, type SessionScheduleState } from './session-state.ts'
export { createSchedule, deleteSchedule, listSchedules, scheduleTools } from './tools.ts'
export { ScheduleOwner, MAX_TIMER_MS, realTimers, type Timers } from './owner.ts'
export { ScheduleWriter } from './writer.ts'
export { createSchedulePlugin, type SchedulePlugin, type ScheduleService } from './plugin.ts'
