import { Box, Text } from 'ink';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ApprovalAnswer } from '../core/permissions/types.js';
import type { ApprovalBroker } from './approval-broker.js';
import { ActivityRows } from './components/activity-rows.js';
import { AgentsView } from './components/agents-view.js';
import { ApprovalPrompt } from './components/approval-prompt.js';
import { Footer } from './components/footer.js';
import { PromptInput } from './components/prompt-input.js';
import { TodoList } from './components/todo-list.js';
import { LiveRegion, TranscriptView } from './components/transcript-view.js';
import { type Clock, realClock } from './clock.js';
import { useApprovals } from './hooks/use-approvals.js';
import { useClockTick } from './hooks/use-clock-tick.js';
import { useCommands } from './hooks/use-commands.js';
import { useConfirmPress } from './hooks/use-confirm-press.js';
import { useGlobalKeys } from './hooks/use-global-keys.js';
import { useLineEditor } from './hooks/use-line-editor.js';
import { useTerminalWidth } from './hooks/use-terminal-width.js';
import { useTurnRunner } from './hooks/use-turn-runner.js';
import { useUiStore } from './hooks/use-ui-store.js';
import { useWakeOnComplete } from './hooks/use-wake-on-complete.js';
import { callsCustomCommand, parseSlashCommand } from './slash-commands.js';
import { activeJobs, orderedJobs } from './state/jobs.js';
import { mcpSegment } from './state/mcp.js';
import type { EntryBody } from './state/transcript.js';
import { type UiState, initialUiState } from './state/ui-store.js';
import type { UiSession } from './ui-session.js';

export interface AppProps {
  session: UiSession;
  approvals: ApprovalBroker;
  /** Called once when the user quits; the caller stops the jobs and unmounts. */
  onQuit: () => void;
  /** How long a first Ctrl+C or Ctrl+K waits for its second press (default 2 s). */
  confirmWindowMs?: number;
  /** Events arriving within this window are shown in one render (default 50 ms: at most 20 renders a second). */
  flushMs?: number;
  /** Sub-agent completions this close together start one wake-on-complete turn (default 300 ms). */
  wakeWindowMs?: number;
  /** Every timer of the app runs on this clock (tests pass a fake). */
  clock?: Clock;
}

function startState(session: UiSession): UiState {
  const intro: EntryBody[] = [
    { kind: 'info', text: `outrider · ${session.model} · /help for keys and commands` },
    ...(session.resumedMessages > 0
      ? [{ kind: 'info', text: `resumed: the model remembers ${session.resumedMessages} earlier messages` } as const]
      : []),
    ...session.warnings.map((text): EntryBody => ({ kind: 'notice', level: 'warn', text })),
  ];
  return initialUiState({ intro, storedJobs: session.storedJobs, wakeOnComplete: session.wakeOnComplete });
}

/** The interactive app: transcript, sub-agent rows, the input (or a view), the footer. */
export function App({
  session,
  approvals,
  onQuit,
  confirmWindowMs = 2000,
  flushMs = 50,
  wakeWindowMs = 300,
  clock = realClock,
}: AppProps) {
  // Everything shown comes from the session's one event stream, through one store.
  const { store, state, say } = useUiStore(session, { clock, flushMs, initial: () => startState(session) });
  const { transcript } = state;
  const width = useTerminalWidth();
  const pending = useApprovals(approvals);
  const { runner, turn } = useTurnRunner(session, say);
  const editor = useLineEditor();
  const [view, setView] = useState<'main' | 'agents'>('main');
  const [quitting, setQuitting] = useState(false);

  const busy = turn.busy !== undefined;
  useWakeOnComplete({ enabled: session.wakeOnComplete, store, runner, clock, windowMs: wakeWindowMs });
  const rows = useMemo(() => activeJobs(state.jobs), [state.jobs]);
  const allJobs = useMemo(() => orderedJobs(state.jobs), [state.jobs]);
  const runningJobs = rows.length;
  // Elapsed times move once a second while a job runs; every render reads the clock afresh.
  useClockTick(clock, runningJobs > 0);
  const now = clock.now();

  const ctrlC = useConfirmPress(confirmWindowMs, clock);
  const ctrlK = useConfirmPress(confirmWindowMs, clock);

  const quit = useCallback(() => {
    runner.dispose();
    approvals.denyAll();
    setQuitting(true);
  }, [runner, approvals]);
  // Told after the quitting frame is committed, so that frame is what stays on the terminal.
  useEffect(() => {
    if (quitting) onQuit();
  }, [quitting, onQuit]);

  const commands = useCommands({
    session,
    runner,
    say,
    openAgents: () => setView('agents'),
    mcpServers: () => store.snapshot().mcp,
    quit,
  });

  const submit = useCallback(() => {
    const text = editor.take();
    if (!text.trim()) return;
    const command = parseSlashCommand(text);
    if (command && !callsCustomCommand(command, session.customCommands)) commands.run(command);
    else runner.submit(text);
  }, [editor, commands, runner, session.customCommands]);

  const interrupt = useCallback(() => {
    if (runner.snapshot().busy === undefined) return;
    const queued = runner.interrupt();
    // Prompts typed during the turn come back to the input, to send again or edit.
    if (queued.length) editor.edit({ type: 'set', text: [editor.current().text, ...queued].filter(Boolean).join(' ') });
  }, [runner, editor]);

  const approval = pending[0];
  useGlobalKeys({
    ctrlC,
    ctrlK,
    activeJobs: runningJobs,
    escapeInterrupts: !approval && view === 'main',
    onQuit: quit,
    onStopAll: () => commands.stopJobs('all'),
    onInterrupt: interrupt,
    onNothingToStop: () => say({ kind: 'info', text: 'no sub-agents are running' }),
  });

  const answer = useCallback(
    (choice: ApprovalAnswer) => {
      // A second key of the same chunk finds the request already answered.
      if (!approval || !approvals.answer(approval.key, choice)) return;
      const { request } = approval;
      const what = `${request.toolName}${request.label ? ` ${request.label}` : ''}${request.jobId ? ` for ${request.jobId}` : ''}`;
      const verdict = choice === 'deny' ? 'denied' : choice === 'allow-always' ? 'allowed for this session:' : 'allowed';
      say({ kind: 'info', text: `${verdict} ${what}` });
    },
    [approval, approvals, say],
  );

  const waiting = useMemo(
    () =>
      new Map(
        pending.filter((p) => p.request.jobId).map((p) => [p.request.jobId!, `${p.request.toolName} ${p.request.label}`.trim()]),
      ),
    [pending],
  );

  const message = ctrlC.armed
    ? 'press Ctrl+C again to quit (stops every sub-agent)'
    : ctrlK.armed
      ? `press Ctrl+K again to stop ${runningJobs} sub-agent${runningJobs === 1 ? '' : 's'}`
      : undefined;

  if (quitting) {
    // The last frame stays on the terminal: the transcript, and no input or hint to mislead.
    return (
      <Box flexDirection="column">
        <TranscriptView entries={transcript.entries} width={width} />
        {runningJobs > 0 ? <Text dimColor>{`stopping ${runningJobs} sub-agent${runningJobs === 1 ? '' : 's'}…`}</Text> : null}
      </Box>
    );
  }

  return (
    <Box flexDirection="column">
      <TranscriptView entries={transcript.entries} width={width} />
      <LiveRegion text={transcript.liveText} thinking={transcript.thinking} tools={transcript.tools} busy={busy} width={width} />
      <ActivityRows jobs={rows} now={now} width={width} waiting={waiting} />
      <TodoList todos={state.todos} width={width} />
      {approval ? <ApprovalPrompt pending={approval} more={pending.length - 1} onAnswer={answer} /> : null}
      {view === 'agents' ? (
        <AgentsView
          jobs={allJobs}
          now={now}
          width={width}
          active={!approval}
          onStop={commands.stopJobs}
          onClose={() => setView('main')}
        />
      ) : (
        <PromptInput
          line={editor.line}
          onEdit={editor.edit}
          onSubmit={submit}
          active={!approval}
          busy={busy}
          queued={turn.queued}
          width={width}
        />
      )}
      <Footer
        model={session.model}
        contextTokens={state.contextTokens}
        jobs={allJobs.map((v) => v.job)}
        now={now}
        width={width}
        message={message}
        mcp={mcpSegment(state.mcp)}
      />
    </Box>
  );
}
