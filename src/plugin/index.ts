export { createTimeContextPlugin } from './time-context-plugin.ts'
export { resolveTimeContextConfig, processTimeZone } from './config.ts'
export type { TimeContextConfig, TimeContextConfigInput, ResolveConfigOptions } from './config.ts'
export { decideReading, intervalSuppresses } from './decide.ts'
export type { ReadingDecisionInput } from './decide.ts'
export { formatDuration, parseDuration } from './duration.ts'
export { formatZonedTimestamp, parseZonedTimestamp } from './timestamp.ts'
export type { ZonedTimestamp } from './timestamp.ts'
export { timeContextIndexFold, applyToTimeContextIndex, EMPTY_TIME_CONTEXT_INDEX } from './index-fold.ts'
export type { TimeContextIndex } from './index-fold.ts'
export {
  TIME_CONTEXT_PLUGIN,
  buildReadingMessage,
  decodeSingleTextContent,
  decodeTimeContextReading,
  isTimeContextSource,
  readingMessageId,
} from './reading-message.ts'
export type { TimeContextSource } from './reading-message.ts'
