import type { SessionView } from '../host/index.ts'

/** Serializes Schedule's read-check-append sequences per session so concurrent changes never race. */
export class ScheduleWriter {
  private readonly chains = new Map<string, Promise<unknown>>()

  /** Runs the task after every earlier task of the same session has finished. */
  exclusive<T>(session: SessionView, task: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(session.id) ?? Promise.resolve()
    const run = previous.then(task)
    const settled = run.catch(() => undefined)
    this.chains.set(session.id, settled)
    void settled.then(() => {
      if (this.chains.get(session.id) === settled) this.chains.delete(session.id)
    })
    return run
  }
}
