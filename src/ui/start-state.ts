import { PERMISSION_MODES, type PermissionMode } from '../core/index.js';
import { conversationEntries } from './state/conversation-entries.js';
import type { EntryBody } from './state/transcript.js';
import { type UiState, initialUiState } from './state/ui-store.js';
import type { UiSession } from './ui-session.js';

/** Shift+Tab's order: default → accept-edits → plan → yolo → default. */
export function nextMode(mode: PermissionMode): PermissionMode {
  return PERMISSION_MODES[(PERMISSION_MODES.indexOf(mode) + 1) % PERMISSION_MODES.length]!;
}

/** The app's first state: the session's header lines, a resumed conversation, the start-up warnings. */
export function startState(session: UiSession): UiState {
  const intro: EntryBody[] = [
    // A resumed session shows where the conversation stood.
    ...conversationEntries(session, session.earlier, {
      jobs: session.storedJobs.map((stored) => stored.job),
      ends: session.earlierEnds ?? [],
    }),
    ...(session.resumedMessages > 0
      ? [
          {
            kind: 'info',
            text: `resumed ${session.sessionId}: the model remembers ${session.resumedMessages} earlier messages`,
          } as const,
        ]
      : []),
    ...session.warnings.map((text): EntryBody => ({ kind: 'notice', level: 'warn', text })),
  ];
  return initialUiState({
    intro,
    storedJobs: session.storedJobs,
    wakeOnComplete: session.wakeOnComplete,
    resumed: session.resumedMessages > 0,
    root: session.root,
  });
}
