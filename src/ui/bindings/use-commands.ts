import { useCallback } from 'react';
import { formatSize, type InstructionFileInfo, JobError, openInBrowser, safeText } from '../../core/index.js';
import { helpLines } from '../keymap.js';
import { diffOf, exportConversation, permissionsCommand, statusOf } from './session-commands.js';
import { modelCommand } from './model-command.js';
import { INIT_PROMPT, type SlashCommand } from '../slash-commands.js';
import { costLines } from '../state/cost-lines.js';
import { userSentText } from '../state/job-status.js';
import type { SentMessage } from '../state/jobs.js';
import { type McpState, mcpLines } from '../state/mcp.js';
import type { EntryBody } from '../state/transcript.js';
import type { TurnRunner } from '../state/turn-runner.js';
import type { UiSession } from '../ui-session.js';

export interface CommandContext {
  session: UiSession;
  runner: TurnRunner;
  say: (entry: EntryBody) => void;
  /** Records that the user's message reached a job (its row and tail show it). */
  sent: (sent: SentMessage) => void;
  openAgents: () => void;
  /** The MCP servers as the UI state last heard of them. */
  mcpServers: () => McpState;
  quit: () => void;
  /** Switches to another stored session; resolves with an error message when it cannot. */
  resume?: (id: string) => Promise<string | undefined>;
  /** Starts a new session (/clear); resolves with an error message when it cannot. */
  clear?: () => Promise<string | undefined>;
  /** Opens the picker of earlier prompts (/rewind), or says why it cannot. */
  openRewind?: () => void;
  /** Sub-agents still queued or running (a switch would stop them). */
  activeJobs: number;
}

/** Runs slash commands; each answers in the transcript or opens a view. */
export function useCommands({
  session,
  runner,
  say,
  sent,
  openAgents,
  mcpServers,
  quit,
  resume,
  clear,
  openRewind,
  activeJobs,
}: CommandContext) {
  /** `/agents send` and the detail view's message line: the path agent_send takes, as from the user. True when it was sent. */
  const sendToJob = useCallback(
    (target: string, text: string): boolean => {
      try {
        const result = session.jobs.send(target, text, 'user');
        sent({ jobId: result.job.id, text: text.trim(), kind: result.kind });
        say({ kind: 'info', text: userSentText(result) });
        return true;
      } catch (error) {
        if (!(error instanceof JobError)) throw error;
        say({ kind: 'error', text: error.message });
        return false;
      }
    },
    [session, say, sent],
  );

  /** `/agents merge <id…|all>`, `/agents discard <id>` and `m`/`d` in the detail view: the outcome is said, and given back. */
  const worktree = useCallback(
    async (verb: 'merge' | 'discard', target: string): Promise<{ content: string; isError: boolean }> => {
      const done = session.worktree
        ? await session.worktree(verb, target).catch((error: unknown) => ({
            content: error instanceof Error ? error.message : String(error),
            isError: true,
          }))
        : { content: 'isolated sub-agents are not available here', isError: true };
      say({ kind: done.isError ? 'error' : 'info', text: done.content });
      return done;
    },
    [session, say],
  );

  const stopJobs = useCallback(
    (target: string) => {
      if (target === 'all') {
        const count = session.jobs.stopAll();
        say({ kind: 'info', text: count ? `stopped ${count} sub-agent${count === 1 ? '' : 's'}` : 'no sub-agents are running' });
      } else {
        try {
          const job = session.jobs.stop(target);
          say({ kind: 'info', text: `stopped ${job.id}` });
        } catch (error) {
          if (!(error instanceof JobError)) throw error;
          say({ kind: 'error', text: error.message });
        }
      }
    },
    [session, say],
  );

  const run = useCallback(
    (command: SlashCommand) => {
      switch (command.name) {
        case 'help':
          return say({ kind: 'block', title: 'Help', lines: helpLines(session.customCommands) });
        case 'agents':
          return openAgents();
        case 'agents-stop':
          return stopJobs(command.target);
        case 'agents-send':
          sendToJob(command.target, command.text);
          return undefined;
        case 'agents-worktree':
          // A merge of several jobs runs the merge check after each, which can take minutes.
          if (command.verb === 'merge') say({ kind: 'info', text: `merging ${command.target} into the checkout…` });
          void worktree(command.verb, command.target);
          return undefined;
        case 'compact':
          if (!runner.compact()) say({ kind: 'info', text: 'a turn is running: wait for it (or press Esc), then /compact' });
          return undefined;
        case 'cost': {
          const { rows, models, total } = session.costs();
          return say({ kind: 'block', title: 'Cost', lines: costLines(rows, total, models) });
        }
        case 'resume': {
          if (!command.id) return say({ kind: 'block', title: 'Sessions', lines: sessionLines(session) });
          if (!resume)
            return say({
              kind: 'error',
              text: 'switching sessions is not available here: quit, then run outrider --resume <id>',
            });
          if (runner.snapshot().busy !== undefined)
            return say({ kind: 'info', text: 'a turn is running: wait for it (or press Esc), then /resume' });
          if (activeJobs > 0)
            return say({
              kind: 'error',
              text: `${activeJobs} sub-agent${activeJobs === 1 ? ' is' : 's are'} running: stop them (Ctrl+K twice) or wait, then /resume`,
            });
          say({ kind: 'info', text: `resuming ${command.id}…` });
          void resume(command.id).then((error) => {
            if (error) say({ kind: 'error', text: error });
          });
          return undefined;
        }
        case 'memory':
          return say({ kind: 'block', title: 'Memory', lines: memoryLines(session.instructionFiles ?? []) });
        case 'mcp':
          return say({ kind: 'block', title: 'MCP servers', lines: mcpLines(mcpServers()) });
        case 'mcp-auth':
          return mcpAuth(session, command, say);
        case 'clear': {
          if (!clear) return say({ kind: 'error', text: 'a new session is not available here: quit, then start outrider again' });
          if (runner.snapshot().busy !== undefined)
            return say({ kind: 'info', text: 'a turn is running: wait for it (or press Esc), then /clear' });
          // The jobs belong to this session: the user chooses to stop them or let them finish first.
          if (activeJobs > 0)
            return say({
              kind: 'error',
              text: `${activeJobs} job${activeJobs === 1 ? ' is' : 's are'} running: stop them (Ctrl+K twice) or wait for them, then /clear`,
            });
          say({ kind: 'info', text: `cleared: a new conversation (the last one is kept: /resume ${session.sessionId})` });
          void clear().then((error) => {
            if (error) say({ kind: 'error', text: error });
          });
          return undefined;
        }
        case 'rewind':
          return openRewind ? openRewind() : say({ kind: 'error', text: 'rewinding is not available here' });
        case 'permissions':
          return say(permissionsCommand(session, command.remove));
        case 'init':
          runner.submit(INIT_PROMPT);
          return undefined;
        case 'diff':
          return say({ kind: 'block', title: 'Changes this session', lines: diffOf(session) });
        case 'status':
          return say({ kind: 'block', title: 'Status', lines: statusOf(session, mcpServers()) });
        case 'model': {
          const answer = modelCommand(session, command);
          return answer ? say(answer) : undefined;
        }
        case 'export':
          return say(exportConversation(session, command.file));
        case 'quit':
          return quit();
        case 'usage':
          return say({ kind: 'error', text: command.message });
        case 'unknown':
          return say({ kind: 'error', text: `unknown command ${command.command}: /help lists the commands` });
        default: {
          const unhandled: never = command;
          return unhandled;
        }
      }
    },
    [session, runner, say, openAgents, mcpServers, stopJobs, sendToJob, worktree, quit, resume, clear, openRewind, activeJobs],
  );

  return { run, stopJobs, sendToJob, worktree };
}

/** /resume without an id: this directory's other sessions, newest first. */
function sessionLines(session: UiSession): string[] {
  const others = session.sessions().filter((s) => s.id !== session.sessionId);
  if (others.length === 0) return ['No other sessions in this directory yet.'];
  return [
    ...others
      .slice(0, 15)
      .map((s) => `  ${s.id}  ${s.updatedAt.slice(0, 16).replace('T', ' ')}  ${s.firstPrompt || '(no prompt)'}`),
    'Switch to one with /resume <id> (or the start of it).',
  ];
}

/** /memory: one line per instruction file in the prompt, with what of it is there and why not all. */
function memoryLines(files: readonly InstructionFileInfo[]): string[] {
  if (files.length === 0)
    return ['no instruction files: AGENTS.md (or CLAUDE.md) from the repository root down to here, ~/.outrider/AGENTS.md'];
  // The notes say when a file is cut or left out; the size is the file's own.
  return files.map((file) =>
    [
      `${file.path}  ${formatSize(file.size)}`,
      ...(file.importedBy ? [`imported by ${file.importedBy}`] : []),
      ...file.notes,
    ].join(' · '),
  );
}

/**
 * `/mcp login <server>`: the sign-in runs in the background (the prompt stays usable); the page
 * to open is always shown, and opened in a browser where one can be. `/mcp logout <server>`.
 */
function mcpAuth(
  session: UiSession,
  command: { verb: 'login' | 'logout'; server: string },
  say: (entry: EntryBody) => void,
): void {
  if (!session.mcp) return say({ kind: 'error', text: 'MCP sign-in is not available here' });
  const name = JSON.stringify(safeText(command.server));
  const failed = (error: unknown) =>
    say({ kind: 'error', text: safeText(error instanceof Error ? error.message : String(error)) });
  if (command.verb === 'logout') {
    void session.mcp.signOut(command.server).then(() => say({ kind: 'info', text: `signed out of ${name}` }), failed);
    return;
  }
  void session.mcp
    .signIn(command.server, {
      onAuthorizationUrl: (url) =>
        void openInBrowser(url).then((opened) =>
          say({
            kind: 'info',
            text: `${opened ? `sign in to ${name} in the browser that opened, or open this page` : `sign in to ${name}: open this page in a browser`} (waiting up to 5 minutes; /mcp login ${safeText(command.server)} starts again):\n${url}`,
          }),
        ),
    })
    .then(() => say({ kind: 'info', text: `signed in to ${name}: its tools join at your next prompt` }), failed);
}
