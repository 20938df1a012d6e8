import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { abortableDelay, type DeltaListener, type Model, type ModelRequest, type ModelResponse } from './model.ts'

const scriptSchema = z.array(
  z
    .object({
      text: z.string().optional(),
      toolCalls: z.array(z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }).strict()).optional(),
      delayMs: z.number().int().nonnegative().optional(),
      streamDelayMs: z.number().int().positive().optional(),
    })
    .strict(),
)

/** One scripted answer of a `script:<file>` model. */
export type ScriptEntry = z.infer<typeof scriptSchema>[number]

/** The pieces a streamed answer is sent in: one per word, each with the spaces after it. */
export function streamPieces(text: string): string[] {
  return text.match(/^\s*\S+\s*|\S+\s*/g) ?? (text === '' ? [] : [text])
}

/**
 * Replays a JSON array of answers, one per model request; empty text once exhausted (SPEC 10).
 * With `streamDelayMs` an answer's text streams word by word, one piece every N ms, and the
 * answer lands N ms after its last piece.
 */
export class ScriptFileModel implements Model {
  readonly name: string
  private index = 0

  constructor(
    private readonly entries: ScriptEntry[],
    name = 'script',
  ) {
    this.name = name
  }

  /** Loads and validates a script file. */
  static async load(path: string): Promise<ScriptFileModel> {
    const raw: unknown = JSON.parse(await readFile(path, 'utf8'))
    const parsed = scriptSchema.safeParse(raw)
    if (!parsed.success) throw new Error(`script ${path} is not a valid script: ${parsed.error.message}`)
    return new ScriptFileModel(parsed.data, `script:${path}`)
  }

  async complete(_request: ModelRequest, signal: AbortSignal, onDelta: DeltaListener = () => undefined): Promise<ModelResponse> {
    const entry = this.entries[this.index]
    this.index++
    if (!entry) return { text: '', toolCalls: [] }
    if (entry.delayMs) await abortableDelay(entry.delayMs, signal)
    if (entry.streamDelayMs !== undefined) {
      for (const piece of streamPieces(entry.text ?? '')) {
        onDelta(piece)
        await abortableDelay(entry.streamDelayMs, signal)
      }
    }
    return {
      text: entry.text ?? '',
      toolCalls: (entry.toolCalls ?? []).map((call) => ({ name: call.name, arguments: JSON.stringify(call.arguments) })),
    }
  }
}
