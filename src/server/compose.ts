import { Host, type RecoveryPolicy, DEFAULT_OPENAI_BASE_URL, OpenAiModel, openAiOptionsFromEnv, ScriptFileModel, systemClock, type Clock, type Plugin, type SessionFold } from '../host/index.ts'
import type { FileLayer, Store, Model } from '../host/index.ts'
import { createInvariantPlugin } from '../invariant/index.ts'
import { createTimeContextPlugin } from '../plugin/index.ts'
import { OfflineModel } from './offline-model.ts'
import { registerScheduleCommands } from './schedule-commands.ts'
import { createSchedulePlugin, type ScheduleService, type Timers } from '../schedule/index.ts'

/** How the app's host is composed. */
export type ComposeOptions = {
  dataDir: string
  /** `offline`, `openai:<model>` or `script:<file>`, or a model instance (tests). */
  model: string | Model
  modelDelayMs?: number
  /** Time one step of the `openai` model may take (default 120 000 ms). */
  modelTimeoutMs?: number
  /** Where the `openai` model reads its endpoint and key (default: the process environment). */
  modelEnv?: NodeJS.ProcessEnv
  refreshIntervalMs?: number
  timeZone?: string
  clock?: Clock
  compactThresholdChars?: number
  extraPlugins?: Plugin[]
  timers?: Timers
  log?: (line: string) => void
  /** The store; default: the JSONL store in `dataDir`. */
  store?: Store
  /** File system calls of the JSONL store (tests inject failures). */
  files?: FileLayer
  /** How a failed session's store is retried, and the timers of its backoff. */
  recovery?: RecoveryPolicy
  recoveryTimers?: Timers
  /** Sessions held open at most, and how long an unused one stays open. */
  maxOpenSessions?: number
  idleCloseMs?: number
}

/** How `createModel` builds a model: the offline model's delay, the clock, the `openai` model's timeout and environment. */
export type CreateModelOptions = { delayMs?: number; clock?: Clock; timeoutMs?: number; env?: NodeJS.ProcessEnv }

/** Builds a model from its command-line name (SPEC 10); the default DeepSeek endpoint needs a key. */
export async function createModel(spec: string, options: CreateModelOptions = {}): Promise<Model> {
  if (spec === 'offline') return new OfflineModel(options.delayMs ?? 0, options.clock ?? systemClock)
  if (spec.startsWith('openai:') && spec.length > 'openai:'.length) {
    const endpoint = openAiOptionsFromEnv(spec.slice('openai:'.length), options.env)
    if (endpoint.baseUrl === DEFAULT_OPENAI_BASE_URL && endpoint.apiKey === undefined) {
      throw new Error(`${spec} needs an API key: set DEEPSEEK_API_KEY (or MODEL_BASE_URL and MODEL_API_KEY for another endpoint)`)
    }
    return new OpenAiModel({
      ...endpoint,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.clock ? { clock: options.clock } : {}),
    })
  }
  if (spec.startsWith('script:') && spec.length > 'script:'.length) return ScriptFileModel.load(spec.slice('script:'.length))
  throw new Error(`unknown model ${JSON.stringify(spec)}: use offline, openai:<model> or script:<file>`)
}

/** The plugins mounted by default: time-context (outermost), its invariant companion, then the rest. */
export function defaultPlugins(options: Pick<ComposeOptions, 'refreshIntervalMs' | 'timeZone'>): Plugin[] {
  const config: { refreshIntervalMs?: number; timeZone?: string } = {}
  if (options.refreshIntervalMs !== undefined) config.refreshIntervalMs = options.refreshIntervalMs
  if (options.timeZone !== undefined) config.timeZone = options.timeZone
  return [createTimeContextPlugin(config), createInvariantPlugin()]
}

/** The host the server runs and the Schedule service behind its reminder routes. */
export type Composition = { host: Host; schedules: ScheduleService }

/** Builds the host with time-context, its invariant and Schedule mounted. */
export async function compose(options: ComposeOptions): Promise<Composition> {
  const clock = options.clock ?? systemClock
  const model =
    typeof options.model === 'string'
      ? await createModel(options.model, {
          clock,
          ...(options.modelDelayMs === undefined ? {} : { delayMs: options.modelDelayMs }),
          ...(options.modelTimeoutMs === undefined ? {} : { timeoutMs: options.modelTimeoutMs }),
          ...(options.modelEnv ? { env: options.modelEnv } : {}),
        })
      : options.model
  const schedule = createSchedulePlugin(options.timers ? { timers: options.timers } : {})
  const host = await Host.create({
    dataDir: options.dataDir,
    model,
    clock,
    plugins: [...defaultPlugins(options), schedule, ...(options.extraPlugins ?? [])],
    ...(options.compactThresholdChars === undefined ? {} : { compactThresholdChars: options.compactThresholdChars }),
    ...(options.log ? { log: options.log } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.files ? { files: options.files } : {}),
    ...(options.recovery ? { recovery: options.recovery } : {}),
    ...(options.recoveryTimers ? { timers: options.recoveryTimers } : {}),
    ...(options.maxOpenSessions === undefined ? {} : { maxOpenSessions: options.maxOpenSessions }),
    ...(options.idleCloseMs === undefined ? {} : { idleCloseMs: options.idleCloseMs }),
  })
  registerScheduleCommands(host, schedule.service)
  return { host, schedules: schedule.service }
}

/** The folds a composed host keeps, for `check` to read logs exactly as the server opens them. */
export function checkFolds(): Promise<SessionFold<unknown>[]> {
  return Host.foldsOf([...defaultPlugins({}), createSchedulePlugin()])
}

/** Builds the host the server runs (see `compose`). */
export async function composeHost(options: ComposeOptions): Promise<Host> {
  return (await compose(options)).host
}
