/**
 * The model a resumed session starts on: the last one `/model` switched it to (its transcript's
 * last `model` event), over settings and the default, but under this run's own `--model` and
 * `--effort`, which the user typed for this run.
 */
import { safeText } from '../platform/safe-text.js';
import { isEffort, type Effort } from '../providers/types.js';
import type { SessionModel } from './session-model.js';

/** What a `model` event recorded: the model and the effort sent with it. */
export interface RecordedModel {
  model: string;
  effort?: Effort;
}

/** Which of the model's settings this run's flags gave (they win over the transcript). */
export interface ExplicitModel {
  model: boolean;
  effort: boolean;
}

/** The last well-formed `model` event of a transcript's events (a hand-edited line is passed over). */
export function lastRecordedModel(events: readonly { name: string; data?: unknown }[]): RecordedModel | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.name !== 'model' || typeof event.data !== 'object' || event.data === null) continue;
    const { model, effort } = event.data as { model?: unknown; effort?: unknown };
    if (typeof model !== 'string' || model.trim() === '') continue;
    return { model, ...(isEffort(effort) ? { effort } : {}) };
  }
  return undefined;
}

/**
 * Switches `model` (opened on the configured model) to the recorded one, checked as `/model`
 * checks a switch. `switched` is false when nothing changed; `warnings` are the switch's notes, or
 * why the recorded model is not used.
 */
export function resumeModel(
  model: SessionModel,
  recorded: RecordedModel | undefined,
  explicit: ExplicitModel,
): { switched: boolean; warnings: string[] } {
  if (!recorded || (explicit.model && explicit.effort)) return { switched: false, warnings: [] };
  const configured = model.current().model;
  const asked = explicit.model ? configured : recorded.model;
  const effort = explicit.effort ? undefined : recorded.effort;
  if (asked === configured && effort === undefined) return { switched: false, warnings: [] };
  const outcome = model.switchTo(asked, effort);
  if (outcome.ok) return { switched: true, warnings: outcome.notes };
  const what = explicit.model ? `effort ${effort}` : safeText(recorded.model.slice(0, 128));
  return {
    switched: false,
    warnings: [`this session was last on ${what} (/model), which is not used: ${outcome.error}; it starts on ${configured}`],
  };
}
