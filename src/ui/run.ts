import { render } from 'ink';
import { createElement } from 'react';
import { type CliOptions, EXIT } from '../start/options.js';
import { describeStartupError, sessionSetupFromCli } from '../start/session-setup.js';
import { stderrLines } from '../start/stderr-lines.js';
import { type OpenedSession, openSession } from '../core/session/open-session.js';
import { App } from './App.js';
import { ApprovalBroker } from './approval-broker.js';
import { settleTrust } from './ask-trust.js';
import { uiSessionFrom } from './ui-session.js';

/** How long after a clean quit a stray handle (an idle keep-alive socket) may keep the process up. */
const EXIT_GRACE_MS = 1500;

/** The interactive TUI: opens the session, renders the app, and returns the exit code when the user quits. */
export async function runInteractive(options: CliOptions): Promise<number> {
  const approvals = new ApprovalBroker();
  let opened: OpenedSession;
  try {
    // The trust question is answered before the session opens with the project's settings.
    const setup = await settleTrust(sessionSetupFromCli(options, { env: process.env, cwd: process.cwd(), headless: false }));
    if (!setup) return EXIT.ok;
    opened = await openSession({ ...setup, approver: approvals.approver });
  } catch (error) {
    process.stderr.write(stderrLines(process.env, process.stderr).error(describeStartupError(error, options.debug)));
    return EXIT.usage;
  }

  let requestQuit = () => {};
  const quitRequested = new Promise<void>((resolve) => {
    requestQuit = resolve;
  });
  const instance = render(createElement(App, { session: uiSessionFrom(opened), approvals, onQuit: () => requestQuit() }), {
    exitOnCtrlC: false,
  });
  // A terminal closed or a `kill` must still stop the sub-agents' processes.
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGHUP', 'SIGINT'];
  const onSignal = () => requestQuit();
  for (const signal of signals) process.once(signal, onSignal);

  let code: number = EXIT.ok;
  try {
    await Promise.race([quitRequested, instance.waitUntilExit()]);
  } catch (error) {
    code = EXIT.failed;
    process.stderr.write(
      stderrLines(process.env, process.stderr).error(`the interface failed: ${describeStartupError(error, options.debug)}`),
    );
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }

  approvals.denyAll();
  instance.unmount();
  await opened.close();
  process.stdout.write(`Session ${opened.session.id} saved. Resume it with: outrider --resume ${opened.session.id}\n`);
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
  return code;
}
