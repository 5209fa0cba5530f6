import type { Workspace } from '../platform/paths.js';
import type { AnyTool } from '../tools/define.js';
import { withCheckpoints } from './checkpoint-tools.js';
import type { EventStream } from './event-stream.js';
import { FileCheckpoints } from './file-checkpoints.js';
import {
  type RewindMode,
  type RewindOutcome,
  type RewindPoint,
  isPromptShaped,
  promptText,
  rewind,
  rewindPoints,
} from './rewind.js';
import type { Session } from './session.js';
import type { SessionPaths } from './store.js';
import type { TranscriptWriter } from './transcript.js';

/** `/rewind` as a front end sees it. */
export interface RewindFace {
  /** The earlier prompts the conversation can go back to, oldest first. */
  points(): RewindPoint[];
  /** Goes back to before the prompt at `index` (a point's); throws a RewindError, worded for the user, when it cannot now. */
  rewind(index: number, mode: RewindMode): Promise<RewindOutcome>;
}

/** A session's file checkpoints, as openSession wires them: into the tools, then into the session. */
export interface SessionCheckpoints {
  readonly store: FileCheckpoints;
  /** The tools, with write_file and edit_file keeping what they change (checkpoint-tools.ts). */
  track(tools: readonly AnyTool[]): AnyTool[];
  /** The session's /rewind, once the session and its transcript exist: its prompts are followed from then on. */
  rewinder(session: Session, transcript: TranscriptWriter): RewindFace;
}

/** The checkpoints of the session stored in `paths` (a resumed one's log is read when first needed). */
export function sessionCheckpoints(paths: SessionPaths, workspace: Workspace, events: EventStream): SessionCheckpoints {
  const store = new FileCheckpoints({
    sessionDir: paths.dir,
    workspace,
    warn: (text) => events.publish({ type: 'notice', level: 'warn', text }),
  });
  return {
    store,
    track: (tools) => withCheckpoints(tools, store),
    rewinder(session, transcript) {
      let running = false;
      // The prompt a `submit` announced, until its message joins the history (none does when a hook blocks it).
      let announced: string | undefined;
      session.events.subscribe(({ event }) => {
        if (event.type === 'submit') {
          running = true;
          announced = event.prompt;
        } else if (event.type === 'run_end') running = false;
      });
      session.conversation.onAppend((message) => {
        if (announced === undefined || !isPromptShaped(message) || promptText(message) !== announced) return;
        announced = undefined;
        store.prompt(message, promptText(message));
      });
      const parts = { conversation: session.conversation, transcript, checkpoints: store, busy: () => running };
      return {
        points: () => rewindPoints(session.messages(), store),
        rewind: (index, mode) => rewind(parts, index, mode),
      };
    },
  };
}
