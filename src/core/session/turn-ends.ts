import type { SessionLedger } from '../jobs/ledger.js';
import type { StopCause } from '../loop/events.js';
import type { Usage } from '../providers/types.js';
import type { EventStream } from './event-stream.js';
import { readTranscript, type TranscriptWriter } from './transcript.js';

/** A turn of an earlier run that did not complete, and where in the history it ended. */
export interface EarlierTurnEnd {
  /** How many messages the history held when it ended: it is drawn after them. */
  messageCount: number;
  cause: Exclude<StopCause, { kind: 'completed' }>;
}

const RECORD = 'run_end';

/** The parent's usage spent on one model (`model` absent: none was said, the session's is meant). */
export interface SpentOn {
  model?: string;
  usage: Usage;
}

/**
 * Writes each parent turn's end to the transcript: how it ended (a resumed session draws its
 * `■ error` / `■ interrupted` lines again) and the parent's usage so far, in all and by the model
 * it was spent on (its cost carries on, each part at its own model's price).
 */
export function recordTurnEnds(
  events: EventStream,
  transcript: TranscriptWriter,
  ledger: Pick<SessionLedger, 'parent' | 'breakdown'>,
): () => void {
  return events.subscribe(({ event }) => {
    if (event.type !== 'run_end') return;
    const parentByModel = ledger
      .breakdown()
      .filter((row) => row.name === 'parent')
      .map(({ model, usage }) => ({ ...(model ? { model } : {}), usage }));
    transcript.event(RECORD, { cause: event.cause, parentUsage: ledger.parent(), parentByModel });
  });
}

/**
 * A stored session's turn ends that did not complete, and the parent's usage as of its last turn
 * by model; a record without the split is put on the model the transcript began with.
 */
export function readTurnEnds(file: string): { ends: EarlierTurnEnd[]; parentUsage: SpentOn[] } {
  let parentUsage: SpentOn[] = [];
  const ends: EarlierTurnEnd[] = [];
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(file);
  } catch {
    return { ends, parentUsage };
  }
  for (const record of read.events) {
    if (record.name !== RECORD || typeof record.data !== 'object' || record.data === null) continue;
    const data = record.data as { cause?: unknown; parentUsage?: unknown; parentByModel?: unknown };
    const byModel = spentByModel(data.parentByModel);
    if (byModel) parentUsage = byModel;
    else if (isUsage(data.parentUsage)) parentUsage = [{ model: read.meta.model, usage: data.parentUsage }];
    // A turn /rewind took back is not drawn again, but what it spent was spent.
    const cause = record.takenBack ? undefined : storedCause(data.cause);
    if (cause) ends.push({ messageCount: record.messageCount, cause });
  }
  return { ends, parentUsage };
}

/** A stored `parentByModel` list, every entry checked; undefined when any is not one. */
function spentByModel(value: unknown): SpentOn[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const spent: SpentOn[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { model, usage } = entry as { model?: unknown; usage?: unknown };
    if (!isUsage(usage)) return undefined;
    if (model === undefined) spent.push({ usage: pickUsage(usage) });
    else if (typeof model === 'string' && MODEL_NAME.test(model)) spent.push({ model, usage: pickUsage(usage) });
    else return undefined;
  }
  return spent;
}

/** A model's name as a row of /cost may show it: printable, bounded. */
const MODEL_NAME = /^[\x21-\x7e]{1,128}$/;

/** The four counts alone: nothing else a stored record carries gets into the ledger. */
function pickUsage(usage: Usage): Usage {
  return { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite };
}

function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false;
  const u = value as Record<string, unknown>;
  return ['input', 'output', 'cacheRead', 'cacheWrite'].every((key) => typeof u[key] === 'number' && Number.isFinite(u[key]));
}

/** An interrupted or failed turn's cause as written, its fields checked (a hook's stop is drawn as an error line). */
function storedCause(value: unknown): EarlierTurnEnd['cause'] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const c = value as Record<string, unknown>;
  if (c.kind === 'aborted') return { kind: 'aborted' };
  if (c.kind === 'error' && typeof c.message === 'string') return { kind: 'error', message: c.message };
  if (c.kind === 'hook' && typeof c.reason === 'string') return { kind: 'error', message: c.reason };
  return undefined;
}
