import { render } from 'ink';
import { createElement } from 'react';
import { type CliOptions, EXIT } from '../start/options.js';
import { describeStartupError, sessionSetupFromCli } from '../start/session-setup.js';
import type { EarlyInput } from '../start/early-input.js';
import { stderrLines } from '../start/stderr-lines.js';
import path from 'node:path';
import {
  listSessions,
  type OpenedSession,
  openSession,
  type SessionEndReason,
  outriderPaths,
  type SessionSetup,
  terminateOwned,
} from '../core/index.js';
import { AltScreen } from './alt-screen.js';
import { App } from './App.js';
import { FOCUS_REPORTING_OFF, FOCUS_REPORTING_ON } from './bindings/use-notify.js';
import { typedText } from './state/input-keys.js';
import { historyFile } from './state/prompt-history.js';
import { resumeTarget } from './state/resume-target.js';
import { ApprovalBroker } from './approval-broker.js';
import { settleTrust } from './ask-trust.js';
import { uiSessionFrom } from './ui-session.js';

const BRACKETED_PASTE_ON = '\u001B[?2004h';
const BRACKETED_PASTE_OFF = '\u001B[?2004l';

/** How long after a clean quit a stray handle (an idle keep-alive socket) may keep the process up. */
const EXIT_GRACE_MS = 1500;

/**
 * The interactive TUI: opens the session, renders the app, and returns the exit code when the
 * user quits. `early` holds what was typed while it started; the app's input receives it first.
 */
export async function runInteractive(options: CliOptions, env: NodeJS.ProcessEnv, early?: EarlyInput): Promise<number> {
  const approvals = new ApprovalBroker();
  let opened: OpenedSession;
  let setup: SessionSetup;
  try {
    // The trust question is answered before the session opens with the project's settings.
    const settled = await settleTrust(sessionSetupFromCli(options, { env, cwd: process.cwd(), headless: false }), early);
    if (!settled) {
      early?.release();
      return EXIT.ok;
    }
    setup = settled;
    opened = await openSession({ ...setup, approver: approvals.approver });
  } catch (error) {
    early?.release();
    process.stderr.write(stderrLines(env, process.stderr).error(describeStartupError(error, options.debug)));
    return EXIT.usage;
  }
  // Plain text typed while it started is in the input from the first frame; other keys, put
  // back into stdin, reach the app's keys as if typed now, in order.
  const typed = early?.take();
  let initialInput = typed ? typedText(typed) : undefined;
  if (typed && initialInput === undefined) process.stdin.unshift(typed, 'utf8');

  // Why the session ends, for SessionEnd hooks: the user leaving the prompt, or a signal.
  let endReason: SessionEndReason = 'prompt_input_exit';
  let requestQuit = () => {};
  const quitRequested = new Promise<void>((resolve) => {
    requestQuit = resolve;
  });
  const history = historyFile(outriderPaths(env).home, opened.session.workspace.root);
  // The job view's full screen, in step with Ink's frames (alt-screen.ts).
  const screen = new AltScreen();
  // /resume <id>: the other session opens first (a bad id changes nothing), then the app starts
  // afresh on it, keyed by its id; what the first one printed stays above.
  const resume = async (wanted: string): Promise<string | undefined> => {
    const target = resumeTarget(
      wanted,
      opened.session.id,
      listSessions(path.dirname(opened.paths.dir)).map((s) => s.id),
    );
    if ('error' in target) return target.error;
    return switchTo({ ...setup, flags: { ...setup.flags, continue: undefined, resume: target.id } }, 'other');
  };
  // /clear: a new session in the same directory (Claude Code's /clear); the old one stays stored, for /resume.
  const clear = () =>
    switchTo({ ...setup, sessionId: undefined, flags: { ...setup.flags, continue: undefined, resume: undefined } }, 'clear');
  const switchTo = async (next: SessionSetup, reason: SessionEndReason): Promise<string | undefined> => {
    let opening: OpenedSession;
    try {
      opening = await openSession({ ...next, approver: approvals.approver });
    } catch (error) {
      return describeStartupError(error, options.debug);
    }
    const previous = opened;
    opened = opening;
    instance.rerender(app());
    await previous.close(reason);
    return undefined;
  };
  const app = () =>
    createElement(App, {
      key: opened.session.id,
      session: uiSessionFrom(opened),
      approvals,
      onQuit: () => requestQuit(),
      historyFile: history,
      onResume: resume,
      onClear: clear,
      screen,
      initialInput,
    });
  const instance = render(app(), { exitOnCtrlC: false, onRender: screen.rendered });
  // Only the first app starts with it (not one that /clear or /resume opens).
  initialInput = undefined;
  // Bracketed paste: the terminal marks pasted text, so its line breaks stay in the input.
  // Focus reports: a notification only when the terminal is not in front.
  process.stdout.write(BRACKETED_PASTE_ON + FOCUS_REPORTING_ON);
  // A terminal closed or a `kill` must still stop the sub-agents' processes.
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];
  const onSignal = () => {
    endReason = 'other';
    requestQuit();
  };
  for (const signal of signals) process.once(signal, onSignal);

  let code: number = EXIT.ok;
  try {
    await Promise.race([quitRequested, instance.waitUntilExit()]);
  } catch (error) {
    code = EXIT.failed;
    process.stderr.write(
      stderrLines(env, process.stderr).error(`the interface failed: ${describeStartupError(error, options.debug)}`),
    );
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }

  approvals.denyAll();
  // A signal can end the app with the job view up: the normal screen comes back before the last frame.
  screen.restore(
    () => instance.clear(),
    (data) => process.stdout.write(data),
  );
  instance.unmount();
  process.stdout.write(BRACKETED_PASTE_OFF + FOCUS_REPORTING_OFF);
  try {
    await opened.close(endReason);
  } finally {
    // Whatever a command left running ends with the app (as with headless, cli/headless.ts).
    await terminateOwned().done;
  }
  process.stdout.write(`Session ${opened.session.id} saved. Resume it with: outrider --resume ${opened.session.id}\n`);
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}
