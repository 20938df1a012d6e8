/** Query keys of every server resource the overlay reads. */
export const queryKeys = {
  sessions: () => ['sessions'] as const,
  session: (id: string) => ['session', id] as const,
  events: (id: string) => ['events', id] as const,
  schedules: (id: string) => ['schedules', id] as const,
  serverTime: (zone: string | null) => ['server-time', zone] as const,
}
