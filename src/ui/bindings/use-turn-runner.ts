import { useEffect, useState, useSyncExternalStore } from 'react';
import { TurnRunner, type TurnSnapshot } from '../state/turn-runner.js';
import type { EntryBody } from '../state/transcript.js';
import type { UiSession } from '../ui-session.js';

/** One TurnRunner for the app's life, and its snapshot (busy, queued prompts). */
export function useTurnRunner(session: UiSession, say: (entry: EntryBody) => void): { runner: TurnRunner; turn: TurnSnapshot } {
  const [runner] = useState(() => new TurnRunner({ session, say }));
  useEffect(() => () => runner.dispose(), [runner]);
  const turn = useSyncExternalStore(runner.subscribe, runner.snapshot);
  return { runner, turn };
}
