/** The SPEC 6 reason strings, in check order. */
export const REASONS = {
  content: 'time-context messages must contain exactly one text block',
  format: 'time-context message does not match the durable reading format',
  integers: 'time-context turn and step must be positive safe integers',
  noTurn: 'time-context reading must be appended inside an open turn',
  noStep: 'time-context reading must follow step/start',
  afterHeader: 'time-context reading must precede request/header',
  source: 'time-context source must carry only the exact snapshot text',
  zones: 'time-context text does not match the Session and current request zones',
  timestamp: 'time-context rendered timestamp must parse and not postdate its durable event',
  elapsed: 'time-context elapsed time does not match its durable baseline',
  sessionZone: 'time-context rendered timestamp does not match the Session time zone',
} as const

/** Reason of check 5: the reading names another turn/step than the open one. */
export function wrongPositionReason(turn: number, step: number, openTurn: number, openStep: number): string {
  return `time-context reading names turn ${turn}/step ${step}, expected turn ${openTurn}/step ${openStep}`
}

/** Reason of check 6: a second reading in one step. */
export function duplicateReadingReason(step: number): string {
  return `time-context step ${step} already has a reading`
}

/** Reason of check 9: the baseline label does not match the step. */
export function wrongBaselineReason(step: number, label: string): string {
  return `time-context step ${step} uses the wrong elapsed-time baseline "${label}"`
}
