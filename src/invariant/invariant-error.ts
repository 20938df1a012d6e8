/** A time-context invariant violation (SPEC 6): `reason` is the stable reason string, `seq` the offending event. */
export class InvariantError extends Error {
  /** Stable code of every invariant failure. */
  readonly code = 'time-context-invariant'
  /** The SPEC 6 reason string. */
  readonly reason: string
  /** Seq of the event that violates the invariant. */
  readonly seq: number

  /** Builds the error for one reason at one event. */
  constructor(reason: string, seq: number) {
    super(`invariant violated by "time-context": ${reason}`)
    this.name = 'InvariantError'
    this.reason = reason
    this.seq = seq
  }
}
