import { z } from 'zod'
import type { JsonSchema } from '../host/index.ts'

const prompt = z.string().describe('What to remind the person of, in their words.')
const afterSeconds = z.int().min(1).describe('Remind once after this many seconds.')
const at = z
  .union([
    z.string().describe('YYYY-MM-DDTHH:mm:ss(.sss)?(Z|±HH:MM)'),
    z.strictObject({
      date: z.string().describe('YYYY-MM-DD'),
      time: z.string().describe('HH:mm:ss'),
      time_zone: z.string().describe('IANA time zone, e.g. Europe/Berlin').optional(),
    }),
  ])
  .describe('Remind once at an absolute time: an RFC 3339 timestamp with offset, or a local date and time.')
const everySeconds = z.int().min(300).describe('Remind repeatedly at this fixed interval in seconds (at least 300); drifts against wall time at DST.')
const rrule = z
  .string()
  .describe(
    'Remind on a calendar rule: an RFC 5545 RRULE value without the "RRULE:" prefix, e.g. "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30". FREQ is DAILY, WEEKLY, MONTHLY or YEARLY; INTERVAL, BYDAY (1MO, -1FR for MONTHLY/YEARLY), BYMONTHDAY, BYMONTH, BYHOUR, BYMINUTE, BYSETPOS, COUNT or UNTIL, WKST. Times default to 09:00.',
  )
const timeZone = z.string().describe('IANA time zone of the rrule wall times; omit only when the person clearly means the Session time zone.')
const starts = z.string().describe('Local date YYYY-MM-DD the rrule series starts on (default: today in its zone).')
const catchUp = z
  .enum(['latest', 'all', 'skip'])
  .describe('For every_seconds and rrule: what a late delivery sends — the latest missed occurrence (default), all (at most 10), or skip (only when at most 15 minutes late).')

/** `schedule_create` arguments (SPEC 7.1, 7.7): the one source of their decoder's shape and of the tool's JSON Schema. */
export const createArgsSchema = z.strictObject({
  prompt,
  after_seconds: afterSeconds.optional(),
  at: at.optional(),
  every_seconds: everySeconds.optional(),
  rrule: rrule.optional(),
  time_zone: timeZone.optional(),
  starts: starts.optional(),
  catch_up: catchUp.optional(),
})

/** `schedule_update` arguments (SPEC 7.8): the id and any of the create fields. */
export const updateArgsSchema = z.strictObject({
  id: z.string().describe('The reminder id, e.g. schedule-2.'),
  ...createArgsSchema.partial().shape,
})

/** `schedule_list` arguments: none. */
export const listArgsSchema = z.strictObject({})

/** `schedule_delete` arguments. */
export const deleteArgsSchema = z.strictObject({ id: z.string().describe('The reminder id, e.g. schedule-2.') })

/** The JSON Schema a tool's parameters are offered to the model with, derived from its zod schema. */
export function toolParameters(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>
  return parameters
}

/** Issues of a zod decode that matter to Schedule: unknown top-level keys and the top-level fields with a problem. */
export type ArgIssues = { unknownKeys: string[]; fields: Set<string> }

/** Decodes arguments with a tool's zod schema; answers which keys are unknown and which fields are wrong. */
export function argIssues(schema: z.ZodType, args: unknown): ArgIssues {
  const parsed = schema.safeParse(args)
  const issues: ArgIssues = { unknownKeys: [], fields: new Set() }
  if (parsed.success) return issues
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0) issues.unknownKeys.push(...issue.keys)
    else if (issue.path.length > 0) issues.fields.add(String(issue.path[0]))
  }
  return issues
}
