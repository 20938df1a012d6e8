export * from './events.ts'
export * from './time-zone.ts'
export * from './wire.ts'
