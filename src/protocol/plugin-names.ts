/** The plugin name time-context readings carry in their source (SPEC 5.5). */
export const TIME_CONTEXT_PLUGIN = 'time-context'

/** The name of the invariant companion installed beside time-context (SPEC 6). */
export const TIME_CONTEXT_INVARIANT_PLUGIN = 'time-context-invariant'

/** The plugin name of Schedule and of its follow-up messages (SPEC 7.5). */
export const SCHEDULE_PLUGIN = 'schedule'

/** The plugin name compaction summaries carry in their source (SPEC 2.4). */
export const COMPACT_PLUGIN = 'compact'
