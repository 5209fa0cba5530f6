import type { StopCause } from '../loop/events.js';
import { type Usage, emptyUsage } from '../providers/types.js';
import type { EventStream } from './event-stream.js';
import { readTranscript, type TranscriptWriter } from './transcript.js';

/** A turn of an earlier run that did not complete, and where in the history it ended. */
export interface EarlierTurnEnd {
  /** How many messages the history held when it ended: it is drawn after them. */
  messageCount: number;
  cause: Exclude<StopCause, { kind: 'completed' }>;
}

const RECORD = 'run_end';

/**
 * Writes each parent turn's end to the transcript: how it ended (a resumed session draws its
 * `■ error` / `■ interrupted` lines again) and the parent's usage so far (its cost carries on).
 */
export function recordTurnEnds(events: EventStream, transcript: TranscriptWriter, parentUsage: () => Usage): () => void {
  return events.subscribe(({ event }) => {
    if (event.type !== 'run_end') return;
    transcript.event(RECORD, { cause: event.cause, parentUsage: parentUsage() });
  });
}

/** A stored session's turn ends that did not complete, and the parent's usage as of its last turn. */
export function readTurnEnds(file: string): { ends: EarlierTurnEnd[]; parentUsage: Usage } {
  let parentUsage = emptyUsage();
  const ends: EarlierTurnEnd[] = [];
  let read: ReturnType<typeof readTranscript>;
  try {
    read = readTranscript(file);
  } catch {
    return { ends, parentUsage };
  }
  for (const record of read.events) {
    if (record.name !== RECORD || typeof record.data !== 'object' || record.data === null) continue;
    const data = record.data as { cause?: unknown; parentUsage?: unknown };
    if (isUsage(data.parentUsage)) parentUsage = data.parentUsage;
    const cause = storedCause(data.cause);
    if (cause) ends.push({ messageCount: record.messageCount, cause });
  }
  return { ends, parentUsage };
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
