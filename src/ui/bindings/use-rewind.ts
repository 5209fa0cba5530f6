import { useStdout } from 'ink';
import { useCallback, useMemo, useState } from 'react';
import type { RewindMode, RewindPoint } from '../../core/index.js';
import type { Clock } from '../clock.js';
import { conversationEntries } from '../state/conversation-entries.js';
import { rewindLines } from '../state/rewind-lines.js';
import type { EntryBody } from '../state/transcript.js';
import type { TurnRunner } from '../state/turn-runner.js';
import type { UiStore } from '../state/ui-store.js';
import type { UiSession } from '../ui-session.js';
import { useConfirmPress } from './use-confirm-press.js';
import type { PromptEditor } from './use-prompt-editor.js';
import { CLEAR_TERMINAL } from './use-terminal-size.js';

export interface RewindOptions {
  session: UiSession;
  store: UiStore;
  runner: TurnRunner;
  editor: Pick<PromptEditor, 'current' | 'set'>;
  say: (entry: EntryBody) => void;
  redraw: (entries: readonly EntryBody[]) => void;
  clock: Clock;
  /** How long a first Esc on an empty input waits for the second. */
  confirmWindowMs: number;
  /** Shows the picker (`rewind`) in place of the input, or the input again (`main`). */
  setView: (view: 'main' | 'rewind') => void;
}

/**
 * /rewind (or Esc twice on an empty input while idle): the picker of earlier prompts, and what the
 * choice does. When the conversation goes back, the screen is cleared and the transcript printed
 * again as it now stands, and the prompt returns to the input.
 */
export function useRewind({ session, store, runner, editor, say, redraw, clock, confirmWindowMs, setView }: RewindOptions) {
  const { stdout } = useStdout();
  const [points, setPoints] = useState<readonly RewindPoint[]>([]);
  const escape = useConfirmPress(confirmWindowMs, clock);

  const open = useCallback(() => {
    escape.disarm();
    if (!session.rewind) return say({ kind: 'error', text: 'rewinding is not available here' });
    if (runner.snapshot().busy !== undefined) {
      return say({ kind: 'info', text: 'a turn is running: wait for it (or press Esc), then /rewind' });
    }
    const found = session.rewind.points();
    if (found.length === 0) return say({ kind: 'info', text: 'no earlier prompt to go back to in this conversation' });
    setPoints(found);
    setView('rewind');
  }, [session, runner, say, escape, setView]);

  const close = useCallback(() => setView('main'), [setView]);

  const choose = useCallback(
    (index: number, mode: RewindMode) => {
      setView('main');
      if (!session.rewind) return;
      session.rewind.rewind(index, mode).then(
        (outcome) => {
          if (mode !== 'code') {
            const messages = session.messages?.() ?? [];
            const jobs = [...store.snapshot().jobs.values()].map((view) => view.job);
            const ends = (session.earlierEnds ?? []).filter((end) => end.messageCount <= messages.length);
            // The transcript above was printed once and for all: the screen starts again from the rewound conversation.
            stdout.write(CLEAR_TERMINAL);
            redraw(conversationEntries(session, messages, { jobs, ends }));
            editor.set(outcome.prompt);
          }
          say({ kind: 'block', title: 'Rewind', lines: rewindLines(outcome, mode) });
        },
        (error: unknown) => say({ kind: 'error', text: error instanceof Error ? error.message : String(error) }),
      );
    },
    [session, store, stdout, redraw, editor, say, setView],
  );

  /** Esc in the chat: interrupts a running turn; twice on an empty input while idle, opens the picker. */
  const onEscape = useCallback(
    (interrupt: () => void) => {
      if (runner.snapshot().busy !== undefined) return interrupt();
      if (editor.current().text !== '') return escape.disarm();
      if (escape.press()) open();
    },
    [runner, editor, escape, open],
  );

  // What the picker shows and calls, for <RewindView>.
  const view = useMemo(() => ({ points, onChoose: choose, onClose: close }), [points, choose, close]);
  return { view, open, onEscape, escapeArmed: escape.armed };
}
