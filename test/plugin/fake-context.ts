import type {
  Clock,
  PluginContext,
  PreStepListener,
  SessionFold,
  SessionView,
  ToolDefinition,
} from '../../src/host/plugin-api.ts'
import type { EventDraft, SessionEvent, SessionHeader, UserMessage } from '../../src/protocol/events.ts'

/** A read-only session over a hand-built log; every effectful method records the call and throws. */
export class FakeSession implements SessionView {
  readonly id: string
  readonly running = true
  readonly closed = false
  readonly effects: string[] = []

  constructor(
    readonly header: SessionHeader,
    private readonly log: SessionEvent[],
  ) {
    this.id = header.id
  }

  get length(): number {
    return this.log.length
  }

  event(seq: number): SessionEvent | undefined {
    return this.log[seq]
  }

  events(): readonly SessionEvent[] {
    return this.log
  }

  fold<S>(fold: SessionFold<S>): S {
    let state = fold.init(this.header)
    for (const event of this.log) state = fold.apply(state, event)
    return state
  }

  append(drafts: EventDraft[]): Promise<SessionEvent[]> {
    return this.effect(`append ${drafts.length}`)
  }

  flush(): Promise<boolean> {
    return this.effect('flush')
  }

  whenIdle(): Promise<void> {
    return this.effect('whenIdle')
  }

  runMaintenance<T>(): Promise<T> {
    return this.effect('runMaintenance')
  }

  enqueue(message: UserMessage, target: 'next-turn' | 'next-step'): Promise<void> {
    return this.effect(`enqueue ${message.id} ${target}`)
  }

  private effect(name: string): never {
    this.effects.push(name)
    throw new Error(`time-context must not call ${name}`)
  }
}

/** Everything a plugin registered through a fake context, plus its controls. */
export type FakeContext = {
  ctx: PluginContext
  listeners: { event: string; listener: PreStepListener; options: { prepend?: boolean } | undefined }[]
  folds: SessionFold<unknown>[]
  tools: ToolDefinition[]
  callbacks: string[]
  clockReads: number[]
  dispose(): void
}

/** A plugin context whose clock returns `times` in order (the last one repeats). */
export function fakeContext(times: number[]): FakeContext {
  const controller = new AbortController()
  const clockReads: number[] = []
  const clock: Clock = {
    now: () => {
      const value = times[Math.min(clockReads.length, times.length - 1)]
      clockReads.push(value)
      return value
    },
  }
  const fake: FakeContext = {
    listeners: [],
    folds: [],
    tools: [],
    callbacks: [],
    clockReads,
    dispose: () => controller.abort(),
    ctx: {
      clock,
      signal: controller.signal,
      get disposed() {
        return controller.signal.aborted
      },
      on: (event, listener, options) => {
        fake.listeners.push({ event, listener, options })
      },
      registerFold: (fold) => {
        fake.folds.push(fold as SessionFold<unknown>)
      },
      registerTool: (tool) => {
        fake.tools.push(tool)
      },
      onSessionOpen: () => {
        fake.callbacks.push('onSessionOpen')
      },
      onAppend: () => {
        fake.callbacks.push('onAppend')
      },
      onSessionClose: () => {
        fake.callbacks.push('onSessionClose')
      },
      provideNextDue: () => {
        fake.callbacks.push('provideNextDue')
      },
      log: (message) => {
        fake.callbacks.push(`log ${message}`)
      },
    },
  }
  return fake
}
