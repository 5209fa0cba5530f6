/** `/model`: the list of models, or a switch of the parent's next turns to one. */
import { safeText } from '../../core/index.js';
import { modelLines } from '../state/model-lines.js';
import type { EntryBody } from '../state/transcript.js';
import type { UiSession } from '../ui-session.js';

/**
 * Without `model`: the list. With one (an id, an alias, `default`, or a number of the list):
 * the switch; the line that confirms it and its notes come from the session's events, so this
 * answers only why it was refused.
 */
export function modelCommand(session: UiSession, command: { model?: string; effort?: string }): EntryBody | undefined {
  const models = session.models;
  if (!models) return { kind: 'error', text: 'switching models is not available here' };
  const entries = models.list();
  if (command.model === undefined) return { kind: 'block', title: 'Models', lines: modelLines(entries, session.effort) };
  const pick = /^\d+$/.test(command.model) ? entries[Number(command.model) - 1] : undefined;
  if (/^\d+$/.test(command.model) && !pick) {
    return { kind: 'error', text: `no model ${command.model}: /model lists 1–${entries.length}` };
  }
  const outcome = models.switchTo(pick?.id ?? command.model, command.effort);
  return outcome.ok ? undefined : { kind: 'error', text: safeText(outcome.error) };
}
