/** `outrider --doctor`, and the start-up line of --debug: which protection this run has. */
import { settingsFromReview } from '../core/config/review-settings.js';
import { SettingsError } from '../core/config/settings.js';
import { reviewSetup } from '../core/session/open-session.js';
import { protectionLine, protectionReport, sandboxConfigFrom } from '../core/sandbox/config.js';
import type { SandboxProbe } from '../core/sandbox/plan.js';
import { probeSandbox } from '../core/sandbox/probe.js';
import { makeWorkspace } from '../core/platform/paths.js';
import { PermissionRules } from '../core/permissions/rule-match.js';
import { type KeyHiding, keyHidingLine } from './hide-keys.js';
import { type CliOptions, EXIT } from './options.js';
import { sessionSetupFromCli } from './session-setup.js';
import { stderrLines } from './stderr-lines.js';

interface Io {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The sandbox as a headless session here would have it (settings as trust resolves them, flags), and one probe. */
async function protection(options: CliOptions, io: Io) {
  const setup = sessionSetupFromCli(options, { env: io.env, cwd: io.cwd, headless: true });
  const { flags } = setup;
  const review = reviewSetup(setup);
  const { settings } = settingsFromReview(review, { trusted: setup.trustProject });
  const config = sandboxConfigFrom({ user: settings, flags: review.flags });
  const workspace = makeWorkspace(io.cwd, flags.addDirs ?? []);
  const probe: SandboxProbe = await probeSandbox({ workspace, env: io.env });
  // The permission rules a session here would apply (settings, Claude Code's files, --allowedTools, --disallowedTools).
  const rules = new PermissionRules(settings.permissions ?? {}, {
    roots: [io.cwd, workspace.root],
    home: io.env.HOME || undefined,
  });
  return { config, probe, rules };
}

/** Prints the report; exit 0 when bubblewrap works here, 1 when the command check stands alone. */
export async function runDoctor(
  options: CliOptions,
  io: Io & { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & { isTTY?: boolean }; keyHiding: KeyHiding },
): Promise<number> {
  let found: Awaited<ReturnType<typeof protection>>;
  try {
    found = await protection(options, io);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    io.stderr.write(stderrLines(io.env, io.stderr).error(error.message));
    return EXIT.usage;
  }
  const rules = found.rules.explain();
  const ruleLines = rules.length
    ? ['permission rules (deny wins, then ask, then allow):', ...rules.map((line) => `  ${line}`)]
    : ['permission rules: none (settings permissions.allow/ask/deny, .claude/settings.json, --allowedTools)'];
  const ruleWarnings = found.rules.warnings.map((line) => `  ${line}`);
  io.stdout.write(
    [...protectionReport(found.config, found.probe), keyHidingLine(io.keyHiding), ...ruleLines, ...ruleWarnings].join('\n') +
      '\n',
  );
  return found.probe.ok ? EXIT.ok : EXIT.failed;
}

/**
 * With --debug: one line on stderr before the front end starts. The probe is handed on
 * through `options`, so the session does not probe a second time. A settings error is left
 * for the session to report.
 */
export async function debugProtectionLine(
  options: CliOptions,
  io: Io & { stderr: NodeJS.WritableStream & { isTTY?: boolean } },
): Promise<void> {
  try {
    const { config, probe } = await protection(options, io);
    io.stderr.write(stderrLines(io.env, io.stderr).note(protectionLine(config, probe)));
    options.sandboxProbe = probe;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
  }
}
