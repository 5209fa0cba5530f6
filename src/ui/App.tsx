import { Box, Text } from 'ink';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { type ApprovalAnswer, type PermissionMode } from '../core/index.js';
import type { AltScreen } from './alt-screen.js';
import type { ApprovalBroker } from './approval-broker.js';
import { JobStatusRows } from './components/job-status-rows.js';
import { AgentsView } from './components/agents-view.js';
import { ApprovalPrompt, approvalHeight } from './components/approval-prompt.js';
import { Footer } from './components/footer.js';
import { JobScreenHost } from './components/job-screen-host.js';
import { PromptInput, promptInputHeight } from './components/prompt-input.js';
import { RewindView } from './components/rewind-view.js';
import { StatusLine } from './components/status-line.js';
import { LiveRegion, TranscriptView, liveTextLines, liveToolLines } from './components/transcript-view.js';
import { TodoList, todoItemsFitting, todoListHeight } from './components/todo-list.js';
import { type Clock, realClock } from './clock.js';
import { useApprovals } from './bindings/use-approvals.js';
import { useClockTick } from './bindings/use-clock-tick.js';
import { useCommands } from './bindings/use-commands.js';
import { useConfirmPress } from './bindings/use-confirm-press.js';
import { useGlobalKeys } from './bindings/use-global-keys.js';
import { useJobScreen } from './bindings/use-job-screen.js';
import { KeysProvider } from './bindings/use-keys.js';
import { useNotify } from './bindings/use-notify.js';
import { usePromptEditor } from './bindings/use-prompt-editor.js';
import { useRewind } from './bindings/use-rewind.js';
import { useTerminalSize } from './bindings/use-terminal-size.js';
import { useTurnRunner } from './bindings/use-turn-runner.js';
import { useUiStore } from './bindings/use-ui-store.js';
import { useWakeOnComplete } from './bindings/use-wake-on-complete.js';
import { callsCustomCommand, callsMcpPrompt, parseSlashCommand } from './slash-commands.js';
import { activeJobs, orderedJobs } from './state/jobs.js';
import { quitEffects } from './state/job-status.js';
import { liveBudget } from './state/live-layout.js';
import { approvalView, readForPreview } from './state/approval-view.js';
import { toolAction } from './state/tool-text.js';
import { WORKING_TICK_MS, workingLine } from './state/turn-activity.js';
import { mcpSegment } from './state/mcp.js';
import { nextMode, startState } from './start-state.js';
import type { UiSession } from './ui-session.js';

export interface AppProps {
  session: UiSession;
  approvals: ApprovalBroker;
  /** Called once when the user quits; the caller stops the jobs and unmounts. */
  onQuit: () => void;
  /** How long a first Ctrl+C or Ctrl+K waits for its second press (default 2 s). */
  confirmWindowMs?: number;
  /**
   * Events arriving within this window are shown in one render (default 100 ms: at most 10
   * renders a second for them). Each render lays out and writes the whole live area again
   * (with 50 streaming sub-agents, about 20 ms of CPU); at 50 ms the TUI took over a third of
   * a core (`npm run bench -- --only tui`). Keys are not batched: they render at once.
   */
  flushMs?: number;
  /** Sub-agent completions this close together start one wake-on-complete turn (default 300 ms). */
  wakeWindowMs?: number;
  /** Every timer of the app runs on this clock (tests pass a fake). */
  clock?: Clock;
  /** Where the prompts sent in this project are kept for ↑/↓; none kept without it. */
  historyFile?: string;
  /** Switches to another stored session (/resume <id>); resolves with an error message when it cannot. */
  onResume?: (id: string) => Promise<string | undefined>;
  /** Starts a new session here (/clear); resolves with an error message when it cannot. */
  onClear?: () => Promise<string | undefined>;
  /** Text typed while the app started (keys of plain text only): the input holds it from the first frame. */
  initialInput?: string;
  /** The terminal's alternate screen, for the job view (run.ts wires it to Ink's frames). */
  screen?: AltScreen;
}

/**
 * The interactive app: transcript, sub-agent rows, the input (or a view), the footer. Every key
 * handler in it takes its keys through one KeysProvider (use-keys.ts), one typed key at a time.
 */
export function App(props: AppProps) {
  return (
    <KeysProvider>
      <AppScreen {...props} />
    </KeysProvider>
  );
}

function AppScreen({
  session,
  approvals,
  onQuit,
  confirmWindowMs = 2000,
  flushMs = 100,
  wakeWindowMs = 300,
  clock = realClock,
  historyFile,
  onResume,
  onClear,
  screen,
  initialInput,
}: AppProps) {
  // Everything shown comes from the session's one event stream, through one store.
  const { store, state, say, sent, redraw } = useUiStore(session, { clock, flushMs, initial: () => startState(session) });
  const { transcript } = state;
  const jobScreen = useJobScreen({ session, store, clock, flushMs, screen, printed: transcript.entries.length });
  const { width, height, generation } = useTerminalSize(clock, { hold: jobScreen.holding });
  const pending = useApprovals(approvals);
  const { runner, turn } = useTurnRunner(session, say);
  const editor = usePromptEditor({
    historyFile,
    root: session.root,
    custom: session.customCommands,
    mcp: state.mcp,
    initialInput,
  });
  const [view, setView] = useState<'main' | 'agents' | 'rewind'>('main');
  const [quitting, setQuitting] = useState(false);

  const busy = turn.busy !== undefined;
  useWakeOnComplete({ enabled: session.wakeOnComplete, store, jobs: session.jobs, runner, clock, windowMs: wakeWindowMs });
  useNotify({ store, mode: session.notify });
  const rows = useMemo(() => activeJobs(state.jobs), [state.jobs]);
  const allJobs = useMemo(() => orderedJobs(state.jobs), [state.jobs]);
  const runningJobs = rows.length;
  // The working line moves while a turn runs, elapsed times once a second while a job runs;
  // every render reads the clock afresh.
  useClockTick(clock, busy || runningJobs > 0, busy ? WORKING_TICK_MS : 1000);
  const now = clock.now();

  const ctrlC = useConfirmPress(confirmWindowMs, clock);
  const ctrlK = useConfirmPress(confirmWindowMs, clock);
  const rewind = useRewind({ session, store, runner, editor, say, redraw, clock, confirmWindowMs, setView });

  // An open job view closes first, so the last frame is drawn on the normal screen.
  const { close: closeJob } = jobScreen;
  const quit = useCallback(() => {
    closeJob(() => {
      runner.dispose();
      approvals.denyAll();
      setQuitting(true);
    });
  }, [runner, approvals, closeJob]);
  // Told after the quitting frame is committed, so that frame is what stays on the terminal.
  useEffect(() => {
    if (quitting) onQuit();
  }, [quitting, onQuit]);

  const commands = useCommands({
    session,
    runner,
    say,
    sent,
    openAgents: () => setView('agents'),
    mcpServers: () => store.snapshot().mcp,
    quit,
    resume: onResume,
    clear: onClear,
    openRewind: rewind.open,
    activeJobs: runningJobs,
  });

  // Worktrees have no events: read (in memory) each time /agents renders; a merge's or discard's outcome line renders it again.
  const worktrees = view === 'agents' ? (session.worktrees?.() ?? []) : [];

  const submit = useCallback(() => {
    const text = editor.take();
    if (!text.trim()) return;
    const command = parseSlashCommand(text);
    if (command && !callsCustomCommand(command, session.customCommands) && !callsMcpPrompt(command)) commands.run(command);
    else runner.submit(text);
  }, [editor, commands, runner, session.customCommands]);

  const interrupt = useCallback(() => {
    if (runner.snapshot().busy === undefined) return;
    const queued = runner.interrupt();
    // Prompts typed during the turn come back to the input, to send again or edit.
    if (queued.length) editor.set([editor.current().text, ...queued].filter(Boolean).join('\n'));
  }, [runner, editor]);

  const approval = pending[0];
  const [mode, setMode] = useState<PermissionMode>(() => session.permissionMode());
  useGlobalKeys({
    // Ctrl+C: interrupts a running turn, else clears a draft, else quits on the second press.
    onCtrlC: () => {
      ctrlK.disarm();
      if (runner.snapshot().busy !== undefined) {
        ctrlC.disarm();
        interrupt();
      } else if (editor.current().text !== '') {
        ctrlC.disarm();
        editor.set('');
      } else if (ctrlC.press()) {
        quit();
      }
    },
    // Ctrl+K: deletes to the end of the input's line when there is text there; else stops sub-agents.
    onCtrlK: () => {
      ctrlC.disarm();
      const { text, cursor } = editor.current();
      if (!approval && view === 'main' && !(Array.from(text)[cursor] ?? '\n').startsWith('\n')) {
        ctrlK.disarm();
        editor.kill();
      } else if (runningJobs === 0) {
        ctrlK.disarm();
        say({ kind: 'info', text: 'no sub-agents are running' });
      } else if (ctrlK.press()) {
        commands.stopJobs('all');
      }
    },
    // Ctrl+B: the parent's running bash commands go on as shell jobs (sh-N); the turn goes on.
    onCtrlB: () => {
      if (!session.moveToBackground) return;
      const moved = session.moveToBackground();
      say(
        moved.length > 0
          ? { kind: 'info', text: `moved to the background as ${moved.join(', ')}` }
          : { kind: 'info', text: 'no bash command is running in the foreground' },
      );
    },
    onEscape: !approval && view === 'main' && !editor.menu ? () => rewind.onEscape(interrupt) : undefined,
    onShiftTab: () => {
      const next = nextMode(session.permissionMode());
      session.setPermissionMode(next);
      setMode(next);
    },
  });

  // What the waiting approval would change, read once per request.
  const approvalShown = useMemo(
    () => (approval ? approvalView(approval.request, { root: session.root, read: readForPreview }) : undefined),
    [approval, session.root],
  );

  const answer = useCallback(
    (choice: ApprovalAnswer) => {
      // A second key of the same chunk finds the request already answered.
      if (!approval || !approvals.answer(approval.key, choice)) return;
      const { request } = approval;
      const what = `${approvalShown?.what ?? request.toolName}${request.jobId ? ` for ${request.jobId}` : ''}`;
      // "Always" is remembered per tool, and per exact command for bash (the gate's rule).
      const always = request.toolName === 'bash' ? 'this command' : request.toolName;
      // A denial of the parent's call ends its turn, as Claude Code's does: the model does not carry on
      // around it, and what the user types next (why, what instead) is what it reads.
      const stops = choice === 'deny' && !request.jobId;
      const text =
        choice === 'deny'
          ? `denied: ${what}${stops ? ' · the turn stopped: tell the agent what to do instead' : ''}`
          : choice === 'allow-always'
            ? `allowed: ${what} (${always} from now on, this session)`
            : `allowed: ${what}`;
      say({ kind: 'info', text });
      if (stops) interrupt();
    },
    [approval, approvals, approvalShown, say, interrupt],
  );

  const waiting = useMemo(
    () =>
      new Map(
        pending
          .filter((p) => p.request.jobId)
          .map((p) => [p.request.jobId!, toolAction(p.request.toolName, p.request.args, p.request.label, session.root)]),
      ),
    [pending, session.root],
  );

  const message = ctrlC.armed
    ? `press Ctrl+C again to quit${runningJobs > 0 ? ` (${quitEffects(rows.map((v) => v.job))})` : ''}`
    : ctrlK.armed
      ? `press Ctrl+K again to stop ${runningJobs} sub-agent${runningJobs === 1 ? '' : 's'}`
      : rewind.escapeArmed
        ? 'press Esc again to rewind to an earlier prompt'
        : undefined;

  // Until the model reports the context's size again (after a resume or a compaction), estimate it.
  const stale = state.contextTokens === undefined;
  const estimate = useMemo(() => (stale ? session.contextEstimate() : 0), [stale, session]);
  const contextTokens = state.contextTokens ?? estimate;

  if (quitting) {
    // The last frame stays on the terminal: the transcript, and no input or hint to mislead.
    return (
      <Box flexDirection="column">
        <TranscriptView key={`${generation}.${state.redraws ?? 0}`} entries={transcript.entries} width={width} />
        {runningJobs > 0 ? <Text dimColor>{`stopping ${runningJobs} sub-agent${runningJobs === 1 ? '' : 's'}…`}</Text> : null}
      </Box>
    );
  }

  if (jobScreen.shown) {
    // The job view takes the screen; what the chat prints meanwhile waits for it (use-job-screen.ts).
    const app = { session, clock, now, width, height, pending, message, commands, worktrees };
    return (
      <Box flexDirection="column">
        <TranscriptView
          key={`${generation}.${state.redraws ?? 0}`}
          entries={jobScreen.entries(transcript.entries)}
          width={width}
        />
        <JobScreenHost shown={jobScreen.shown} jobs={state.jobs} close={jobScreen.close} app={app} />
      </Box>
    );
  }

  // The live area never reaches the screen's height (see live-layout.ts).
  const budget = liveBudget({
    height,
    bottom: view !== 'main' ? Number.MAX_SAFE_INTEGER : promptInputHeight(editor.line, turn.queued, width, editor.menu),
    approval: approvalHeight(approval, approvalShown),
    working: busy ? 1 : 0,
    status: session.statusLine?.main ? 1 : 0,
    todos: todoListHeight(state.todos),
    rows: rows.length,
    tools: liveToolLines(transcript.tools),
    text: liveTextLines(transcript.liveText, width).length,
  });

  return (
    <Box flexDirection="column">
      <TranscriptView key={`${generation}.${state.redraws ?? 0}`} entries={jobScreen.entries(transcript.entries)} width={width} />
      <LiveRegion
        text={transcript.liveText}
        tools={transcript.tools}
        working={
          busy && budget.working > 0
            ? workingLine(state.turn, now, turn.busy === 'compact' ? 'compacting the conversation' : undefined)
            : undefined
        }
        width={width}
        textLines={budget.text}
        toolLines={budget.tools}
      />
      <JobStatusRows
        status={{ session, store, clock, say }}
        jobs={rows}
        now={now}
        width={width}
        waiting={waiting}
        maxLines={budget.rows}
        root={session.root}
      />
      <TodoList todos={state.todos} width={width} max={todoItemsFitting(state.todos, budget.todos)} />
      {approval ? (
        <ApprovalPrompt
          pending={approval}
          view={approvalShown}
          more={pending.length - 1}
          onAnswer={answer}
          width={width}
          maxLines={budget.approval}
        />
      ) : null}
      {view === 'agents' ? (
        <AgentsView
          jobs={allJobs}
          now={now}
          width={width}
          active={!approval}
          onStop={commands.stopJobs}
          onSend={commands.sendToJob}
          onWorktree={commands.worktree}
          worktrees={worktrees}
          onClose={() => setView('main')}
          maxLines={budget.bottom}
          root={session.root}
          onOpenJob={(id) => jobScreen.open(id, { width, height })}
          selectedId={jobScreen.lastId}
        />
      ) : view === 'rewind' ? (
        <RewindView {...rewind.view} width={width} maxLines={budget.bottom} active={!approval} />
      ) : (
        <PromptInput
          line={editor.line}
          onKey={editor.onKey}
          onSubmit={submit}
          menu={editor.menu}
          active={!approval}
          busy={busy}
          queued={turn.queued}
          width={width}
          maxLines={budget.bottom}
        />
      )}
      <StatusLine session={session} store={store} clock={clock} say={say} mode={mode} width={width} lines={budget.status} />
      <Footer
        model={session.model}
        effort={session.effort}
        mode={mode}
        contextTokens={contextTokens}
        contextWindow={session.contextWindow}
        cost={state.cost}
        jobs={allJobs.map((v) => v.job)}
        now={now}
        width={width}
        message={message}
        inView={view !== 'main'}
        lines={budget.footer}
        mcp={mcpSegment(state.mcp)}
      />
    </Box>
  );
}
