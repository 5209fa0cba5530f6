import type { Job } from '../core/agents/job-manager.js';
import type { LoopResult } from '../core/loop/agent-loop.js';
import type { StopCause } from '../core/loop/events.js';
import { limitHint } from '../core/loop/limits.js';
import { messageText } from '../core/providers/types.js';
import type { SequencedEvent } from '../core/session/event-stream.js';
import { type OpenedSession, openSession } from '../core/session/open-session.js';
import { oneLine } from '../core/text.js';
import { type CliOptions, EXIT } from '../start/options.js';
import { describeStartupError, sessionSetupFromCli } from '../start/session-setup.js';
import { stderrLines } from '../start/stderr-lines.js';
import { PromptTooLargeError, readPrompt } from './read-prompt.js';

export interface HeadlessIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** `outrider -p`: one prompt, run to the end (sub-agents included), printed as asked. */
export async function runHeadless(options: CliOptions, io: HeadlessIO): Promise<number> {
  const startedAt = Date.now();
  const say = stderrLines(io.env, io.stderr as { isTTY?: boolean });
  let prompt: string;
  try {
    prompt = await readPrompt({ print: options.print, stdin: io.stdin });
  } catch (error) {
    if (!(error instanceof PromptTooLargeError)) throw error;
    io.stderr.write(say.error(error.message));
    return EXIT.usage;
  }
  if (!prompt.trim()) {
    io.stderr.write(say.error('no prompt: pass one with -p "<prompt>" or pipe it on stdin'));
    return EXIT.usage;
  }

  let opened: OpenedSession;
  try {
    opened = await openSession(sessionSetupFromCli(options, { env: io.env, cwd: io.cwd, headless: true }));
  } catch (error) {
    io.stderr.write(say.error(describeStartupError(error, options.debug)));
    return EXIT.usage;
  }

  const format = options.outputFormat;
  const emit = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  // A closed terminal (SIGHUP) stops the run like SIGTERM: jobs stopped, commands killed, not left running.
  const onHangup = () => {
    // Writing to a terminal that is gone fails (EIO); the cleanup must still run.
    for (const stream of [io.stdout, io.stderr]) stream.on('error', () => {});
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('SIGHUP', onHangup);

  const { session } = opened;
  if (format === 'stream-json') {
    emit({
      type: 'system',
      subtype: 'init',
      session_id: session.id,
      model: opened.model,
      cwd: io.cwd,
      tools: session.tools.names(),
    });
  }
  for (const warning of opened.warnings) {
    // stderr for people; in stream-json also a line for the program reading stdout.
    io.stderr.write(say.warn(warning));
    if (format === 'stream-json') emit({ type: 'system', subtype: 'warning', message: warning });
  }

  // The session's one stream: turn and job events in the order they happened.
  const unsubscribe = opened.events.subscribe(({ seq, event }: SequencedEvent) => {
    if (format === 'stream-json') emit({ seq, ...event });
    else if (options.debug) io.stderr.write(`[event] ${JSON.stringify({ seq, ...event })}\n`);
    // A warning during the run (a sub-agent's model the provider cannot serve) reaches people too.
    if (format !== 'stream-json' && event.type === 'notice' && event.level === 'warn') io.stderr.write(say.warn(event.text));
    if (format !== 'stream-json' && event.type === 'retry') {
      io.stderr.write(
        say.note(`${event.reason}; retry ${event.attempt}/${event.maxRetries} in ${Math.round(event.delayMs / 100) / 10}s`),
      );
    }
  });

  let result: LoopResult | undefined;
  try {
    result = await session.submit(prompt, controller.signal);
    // Jobs still running when the parent finished: wait, then one more turn with the notice.
    while (options.waitAgents && result.cause.kind === 'completed' && !controller.signal.aborted) {
      if (!(await opened.waitForAgents(controller.signal))) break;
      result = await session.submit(undefined, controller.signal);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onHangup);
    await opened.close();
    unsubscribe();
  }
  // A signal while waiting for sub-agents leaves the last turn's cause "completed": the run was still interrupted.
  const cause: StopCause = controller.signal.aborted ? { kind: 'aborted' } : result.cause;

  const lastAssistant = [...session.messages()].reverse().find((m) => m.role === 'assistant' && messageText(m));
  const text = lastAssistant ? messageText(lastAssistant) : '';
  const failed = cause.kind !== 'completed';
  const summary = {
    type: 'result',
    subtype: failed ? `error_${cause.kind}` : 'success',
    is_error: failed,
    result: text,
    error: failed ? describeCause(cause) : undefined,
    session_id: session.id,
    num_turns: session.turns(),
    duration_ms: Date.now() - startedAt,
    usage: opened.totals(),
    total_cost_usd: opened.cost(),
    jobs: opened.jobs().map((job) => jobSummary(job, opened.costOf(job.usage, job.id))),
  };
  if (format === 'json' || format === 'stream-json') emit(summary);
  else if (text) io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  if (failed) io.stderr.write(say.error(describeCause(cause)));
  return failed ? EXIT.failed : EXIT.ok;
}

/** One job in the headless JSON result. */
function jobSummary(job: Job, cost: number | undefined) {
  return {
    id: job.id,
    definition: job.definition,
    ...(job.model ? { model: job.model } : {}),
    status: job.state,
    task: oneLine(job.task, 80),
    turns: job.turns,
    tool_calls: job.toolCalls,
    tokens: job.usage,
    cost_usd: cost,
    duration_ms: job.startedAt !== undefined && job.endedAt !== undefined ? job.endedAt - job.startedAt : undefined,
  };
}

function describeCause(cause: StopCause): string {
  switch (cause.kind) {
    case 'completed':
      return 'completed';
    case 'aborted':
      return 'interrupted';
    case 'limit':
      return `stopped: ${cause.detail}${limitHint(cause.limit)}`;
    case 'error':
      return cause.message;
  }
}
