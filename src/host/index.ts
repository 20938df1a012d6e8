export * from './plugin-api.ts'
export * from './errors.ts'
export {
  Host,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_RECOVERY,
  DEFAULT_MAX_OPEN_SESSIONS,
  DEFAULT_IDLE_CLOSE_MS,
  type HostOptions,
  type OutgoingMessage,
  type RecoveryPolicy,
  type SessionDescription,
  type CommandContext,
  type QueryHandler,
} from './host.ts'
export { Session } from './session/session.ts'
export type { SessionActivity } from './session/lock.ts'
export type { AssistantDelta } from './session/turn-runner.ts'
export { SessionFeed } from './session-feed.ts'
export { SessionLog, FoldingVisitor } from './session-log.ts'
export * from './store/index.ts'
export { loopFold, inboxFold, surfaceFold, titleFold, type LoopState, type SurfaceState } from './folds.ts'
export { randomId } from './ids.ts'
export { PluginRegistry, HostPluginContext } from './registry.ts'
export * from './models/model.ts'
export { ScriptedModel, type ScriptedStep } from './models/scripted.ts'
export { ScriptFileModel, type ScriptEntry } from './models/script-file.ts'
export { OpenAiModel, StreamAccumulator, openAiOptionsFromEnv, DEFAULT_OPENAI_BASE_URL, type OpenAiModelOptions } from './models/openai.ts'
