import { HostError } from '../errors.ts'

/** Whether a session is working. */
export type SessionActivity = 'idle' | 'running'

/** Who holds a session: a turn of the agent loop or a plugin's maintenance task. */
export type Holder = 'turn' | 'maintenance'

/** The exclusive claim on one session (SPEC 3.3): one turn or maintenance task at a time. */
export class SessionLock {
  private holder: Holder | null = null
  private idleWaiters: (() => void)[] = []

  constructor(
    private readonly sessionId: string,
    /** Called after every take and release (the session derives what it reports from `held`). */
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** True while a turn or maintenance task holds the session. */
  get held(): boolean {
    return this.holder !== null
  }

  /** Takes the idle session; throws `session-busy` when it is held. */
  take(holder: Holder): void {
    if (this.holder !== null) throw new HostError('session-busy', `session ${this.sessionId} is busy`)
    this.holder = holder
    this.onChange()
  }

  /** Releases the session and wakes everyone waiting for it to be idle. */
  release(): void {
    this.holder = null
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
    this.onChange()
  }

  /** Resolves when nobody holds the session. */
  whenIdle(): Promise<void> {
    if (this.holder === null) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }
}
