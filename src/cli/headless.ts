import packageJson from '../../package.json' with { type: 'json' };
import {
  hookLine,
  killOwned,
  type OpenedSession,
  openSession,
  type PermissionDenial,
  type SequencedEvent,
  sessionCommands,
  terminateOwned,
  toolPermissionPrompt,
} from '../core/index.js';
import { type CliOptions, EXIT } from '../start/options.js';
import { describeStartupError, sessionSetupFromCli, unhonouredFlags } from '../start/session-setup.js';
import { stderrLines } from '../start/stderr-lines.js';
import { type Group, add, jsonResult, newGroup, summarize } from './headless-result.js';
import { PromptInputError, readPrompt } from './read-prompt.js';
import {
  answerControlRequests,
  initializeResponse,
  initializeSetup,
  stdioPermissionPrompt,
  withInitialize,
} from './sdk-control.js';
import { type Incoming, StreamChannel } from './stream-control.js';
import { StreamInputError, USER_MESSAGE_SHAPE } from './stream-input.js';
import { createStreamJson } from './stream-json.js';

export interface HeadlessIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * `outrider -p`: one prompt (or, with `--input-format stream-json`, one turn per message on
 * stdin), run to the end (sub-agents included), printed as asked.
 */
export async function runHeadless(options: CliOptions, io: HeadlessIO): Promise<number> {
  const say = stderrLines(io.env, io.stderr as { isTTY?: boolean });
  const streamInput = options.inputFormat === 'stream-json';
  const misuse = streamInput ? streamInputMisuse(options) : undefined;
  if (misuse) {
    io.stderr.write(say.error(misuse));
    return EXIT.usage;
  }
  let prompt: string;
  try {
    // A getter: readPrompt touches stdin only without a -p prompt, and process.stdin builds a stream.
    const input = {
      print: options.print,
      get stdin() {
        return io.stdin;
      },
    };
    prompt = streamInput ? '' : await readPrompt(input);
  } catch (error) {
    if (!(error instanceof PromptInputError)) throw error;
    io.stderr.write(say.error(error.message));
    return EXIT.usage;
  }
  if (!streamInput && !prompt.trim()) {
    io.stderr.write(say.error('no prompt: pass one with -p "<prompt>" or pipe it on stdin'));
    return EXIT.usage;
  }

  const format = options.outputFormat;
  const emit = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  const controller = new AbortController();
  // stream-json input is read all along (the SDK's control requests come during turns); the
  // SDK's `initialize` comes first and shapes the session, so it is read before the session opens.
  const channel = streamInput ? new StreamChannel(io.stdin, emit, { signal: controller.signal }) : undefined;
  let first: Incoming | undefined;
  let badInput: string | undefined;
  try {
    first = await channel?.next();
  } catch (error) {
    if (!(error instanceof StreamInputError)) throw error;
    badInput = error.message;
  }
  const init = first?.kind === 'initialize' ? initializeSetup(first.request) : undefined;

  let opened: OpenedSession;
  try {
    opened = await openSession(
      withInitialize(sessionSetupFromCli(options, { env: io.env, cwd: io.cwd, headless: true }), init, channel),
    );
  } catch (error) {
    io.stderr.write(say.error(describeStartupError(error, options.debug)));
    return EXIT.usage;
  }
  // The first signal stops the run: jobs stopped, commands killed, and outrider exits once what
  // they left is gone. A closed terminal (SIGHUP) does it like SIGTERM. A second signal waits no
  // more: what the commands left is killed at once, and outrider ends as that signal would have it.
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // Writing to a terminal that is gone fails (EIO); the cleanup must still run.
    if (signal === 'SIGHUP') for (const stream of [io.stdout, io.stderr]) stream.on('error', () => {});
    if (!signalled) {
      signalled = true;
      controller.abort();
      return;
    }
    releaseSignals();
    killOwned();
    process.kill(process.pid, signal);
  };
  const releaseSignals = () => {
    for (const signal of RUN_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of RUN_SIGNALS) process.on(signal, onSignal);

  const { session } = opened;
  // The turn running now, for an `interrupt` from the SDK (or its canUseTool's deny with interrupt).
  let turn: AbortController | undefined;
  const interruptTurn = () => turn?.abort();
  if (channel) {
    answerControlRequests(channel, opened, interruptTurn);
    if (first?.kind === 'initialize') channel.respond(first.requestId, initializeResponse(opened, packageJson.version));
  }
  if (options.permissionPromptTool === 'stdio' && channel) {
    opened.gate.usePrompt(stdioPermissionPrompt(channel, io.cwd, interruptTurn));
  } else if (options.permissionPromptTool && options.permissionPromptTool !== 'stdio') {
    const name = options.permissionPromptTool;
    opened.gate.usePrompt(toolPermissionPrompt({ name, tool: () => session.tools.get(name), cwd: io.cwd }));
  }
  // Claude Code's permission_denials: every call the gate refused, by result.
  let denials: PermissionDenial[] = [];
  const stopDenials = opened.gate.onDenied((denial) => denials.push(denial));
  const claudeStream =
    format === 'stream-json'
      ? createStreamJson(
          {
            sessionId: session.id,
            cwd: io.cwd,
            // Read at each use: the Agent SDK's set_model switches the model between turns.
            get model() {
              return opened.model;
            },
            provider: opened.provider,
            tools: session.tools.names(),
            agents: opened.agentNames,
            mcpServers: opened.mcp.statuses(),
            slashCommands: sessionCommands(opened).map((command) => command.name),
            skills: opened.skillNames,
            permissionMode: opened.gate.mode,
            version: packageJson.version,
            get contextWindow() {
              return opened.modelLimits.contextWindow;
            },
            get maxOutput() {
              return opened.modelLimits.maxOutput;
            },
          },
          emit,
          { partial: options.includePartialMessages === true },
        )
      : undefined;
  claudeStream?.init();
  if (format === 'events-json') {
    emit({
      type: 'system',
      subtype: 'init',
      session_id: session.id,
      model: opened.model,
      cwd: io.cwd,
      tools: session.tools.names(),
    });
  }
  const unhonoured = unhonouredFlags(options);
  const warnings = [...opened.warnings, ...(init?.warnings ?? []), ...(unhonoured ? [unhonoured] : [])];
  if (options.permissionPromptTool === 'stdio' && !channel)
    warnings.push('--permission-prompt-tool stdio needs --input-format stream-json: questions are denied as usual');
  for (const warning of warnings) {
    // stderr for people; in stream-json and events-json also a line for the program reading stdout.
    io.stderr.write(say.warn(warning));
    if (claudeStream) claudeStream.warning(warning);
    else if (format === 'events-json') emit({ type: 'system', subtype: 'warning', message: warning });
  }

  // The session's one stream: turn and job events in the order they happened.
  const unsubscribe = opened.events.subscribe(({ seq, event }: SequencedEvent) => {
    if (format === 'events-json') emit({ seq, ...event });
    else if (claudeStream) claudeStream.event(event);
    else if (options.debug) io.stderr.write(`[event] ${JSON.stringify({ seq, ...event })}\n`);
    // What hooks did (blocked a call, failed) is the user's to know even without stream-json.
    const hook =
      event.type === 'hook' ? event : event.type === 'job_event' && event.event.type === 'hook' ? event.event : undefined;
    const line = format !== 'events-json' && format !== 'stream-json' && hook ? hookLine(hook) : undefined;
    if (line) {
      const text = event.type === 'job_event' ? `${event.jobId}: ${line.text}` : line.text;
      io.stderr.write(line.level === 'warn' ? say.warn(text) : say.note(text));
    }
    // A warning during the run (a sub-agent's model the provider cannot serve) reaches people too.
    if (format !== 'events-json' && format !== 'stream-json' && event.type === 'notice' && event.level === 'warn')
      io.stderr.write(say.warn(event.text));
    if (format !== 'events-json' && format !== 'stream-json' && event.type === 'retry') {
      const seconds = Math.round(event.delayMs / 100) / 10;
      // A rate limit spends no retry: every call to the provider (the sub-agents' too) pauses.
      const next = event.rateLimited
        ? `calls to this provider pause for ${seconds}s`
        : `retry ${event.attempt}/${event.maxRetries} in ${seconds}s`;
      io.stderr.write(say.note(`${event.reason}; ${next}`));
    }
  });

  // One result per group of turns: a prompt and the turns that hand over its sub-agents' notices.
  let failed = false;
  const finish = (group: Group, interrupted = false) => {
    const summary = summarize(group, opened, denials);
    // In text and json the denials would reach the model alone: people read why (and the flag that allows it) on stderr.
    if (!claudeStream && format !== 'events-json')
      for (const denial of denials) io.stderr.write(say.warn(`${denial.jobId ? `${denial.jobId}: ` : ''}${denial.message}`));
    denials = [];
    // A turn the SDK interrupted ends as asked: its result says so, the run goes on and has not failed.
    failed ||= group.cause.kind !== 'completed' && !interrupted;
    if (claudeStream) claudeStream.result(summary);
    else if (format === 'json' || format === 'events-json') emit(jsonResult(summary, session.id, session.turns()));
    else if (summary.text) io.stdout.write(summary.text.endsWith('\n') ? summary.text : `${summary.text}\n`);
    if (summary.error) io.stderr.write(say.error(summary.error));
  };
  // Jobs still running when the parent finished: wait, then one more turn with the notice.
  const waitForAgents = async (group: Group) => {
    while (options.waitAgents && group.cause.kind === 'completed' && !controller.signal.aborted) {
      if (!(await opened.waitForAgents(controller.signal))) break;
      add(group, await session.submit(undefined, controller.signal));
    }
    // A signal while waiting for sub-agents leaves the last turn's cause "completed": the run was still interrupted.
    if (controller.signal.aborted) group.cause = { kind: 'aborted' };
  };
  // The last group's result waits for close: sub-agents stopped there are in its jobs, and it stays the last line.
  let last: Group | undefined;
  try {
    if (!streamInput) {
      const group = newGroup();
      add(group, await opened.submitPrompt(prompt, controller.signal));
      await waitForAgents(group);
      last = group;
    } else if (channel) {
      let messages = 0;
      try {
        let next = first?.kind === 'user' ? first : badInput ? undefined : await channel.next();
        for (; next; next = await channel.next()) {
          if (next.kind === 'initialize') {
            channel.respond(next.requestId, initializeResponse(opened, packageJson.version));
            continue;
          }
          messages += 1;
          const group = newGroup();
          turn = new AbortController();
          const stop = () => turn?.abort();
          controller.signal.addEventListener('abort', stop, { once: true });
          try {
            add(group, await opened.submitPrompt(next.text, turn.signal, { images: next.images }));
          } finally {
            controller.signal.removeEventListener('abort', stop);
          }
          const interrupted = turn.signal.aborted && !controller.signal.aborted;
          turn = undefined;
          if (controller.signal.aborted) {
            last = group;
            break;
          }
          finish(group, interrupted);
        }
      } catch (error) {
        if (!(error instanceof StreamInputError)) throw error;
        badInput = error.message;
      }
      if (messages === 0 && !badInput && !controller.signal.aborted)
        badInput = `no user message on stdin: send one a line, such as ${USER_MESSAGE_SHAPE}`;
      // At EOF, sub-agents still owe their reports: the turns that hand them over get a result of their own.
      const group = newGroup();
      await waitForAgents(group);
      if (group.turns > 0 || (group.cause.kind === 'aborted' && !last)) last = group;
    }
  } finally {
    try {
      await opened.close();
    } finally {
      // Whatever a command left running (`server > log &`, a child that ignores SIGTERM or left
      // its group) ends with the run: outrider exits only once its SIGKILL is sent.
      await terminateOwned().done;
      releaseSignals();
    }
    unsubscribe();
    stopDenials();
  }
  if (last) finish(last);
  if (badInput) {
    io.stderr.write(say.error(badInput));
    return EXIT.usage;
  }
  return failed ? EXIT.failed : EXIT.ok;
}

/** What stops a headless run: Ctrl+C, a kill, a closed terminal. */
const RUN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Why `--input-format stream-json` cannot run with these options, if it cannot. */
function streamInputMisuse(options: CliOptions): string | undefined {
  if (typeof options.print === 'string') {
    return '--input-format stream-json reads the prompts from stdin: drop the prompt after -p';
  }
  if (options.outputFormat !== 'stream-json') {
    return '--input-format stream-json needs --output-format stream-json (a result line follows each message)';
  }
  return undefined;
}
