/**
 * The session's sandbox choice and what the user is told about it. The choice is read from
 * the user's own settings and the flags only, never a project's settings file: the repository
 * is not trusted (docs/architecture.md), and its file must not turn the sandbox off or open
 * the network. (Once settings mark keys that need a trusted folder, these are such keys.)
 */
import type { SandboxConfig, SandboxMode, SandboxProbe } from './plan.js';

/** The two settings keys the choice is made of, as a settings layer (user file, flags) holds them. */
export interface SandboxSettings {
  sandbox?: SandboxMode;
  sandboxNetwork?: boolean;
}

/** Where the mode came from, for --doctor. */
export type SandboxSource = 'flag' | 'user settings' | 'default';

export function sandboxConfigFrom(layers: {
  user: SandboxSettings;
  flags: SandboxSettings;
}): SandboxConfig & { source: SandboxSource } {
  const { user, flags } = layers;
  const mode: SandboxMode = flags.sandbox ?? user.sandbox ?? 'off';
  const source: SandboxSource = flags.sandbox ? 'flag' : user.sandbox ? 'user settings' : 'default';
  return { mode, network: flags.sandboxNetwork ?? user.sandboxNetwork ?? false, source };
}

/** Said once at start-up (the front ends show a session's warnings) when the sandbox cannot be had. */
export function sandboxWarnings(config: SandboxConfig, probe: SandboxProbe): string[] {
  if (probe.ok) return [];
  const install = probe.unsupported ? '' : '; install bubblewrap (apt-get install bubblewrap) to fence them';
  const why = `no OS sandbox: ${probe.reason}. Commands judged read-only run on the command check alone${install}.`;
  if (config.mode === 'off') return [why];
  return [
    `${why} With the sandbox set to ${config.mode}, commands that need approval will not run; use --sandbox off to run them unfenced.`,
  ];
}

/** One line for --debug at start-up. */
export function protectionLine(config: SandboxConfig, probe: SandboxProbe): string {
  const fence = probe.ok ? `${probe.version} works` : `no bubblewrap (${probe.reason})`;
  const readOnly = probe.ok ? 'read-only sandbox' : 'command check only';
  return `sandbox: ${fence}; commands judged read-only: ${readOnly} + git hardening; other commands: ${otherCommands(config, probe)}`;
}

/** The lines of `outrider --doctor`. */
export function protectionReport(config: SandboxConfig & { source: SandboxSource }, probe: SandboxProbe): string[] {
  return [
    probe.ok ? `bubblewrap: ${probe.version} at ${probe.bwrap}, works` : `bubblewrap: not usable: ${probe.reason}`,
    `commands judged read-only (run without asking in default, accept-edits and plan modes): ${
      probe.ok
        ? 'read-only sandbox (the whole filesystem read-only, private /tmp, no network, no local sockets, own pid namespace)'
        : 'the command check alone, no OS sandbox'
    }`,
    `git hardening for them: on (the repository's git config cannot name programs to run; PATH without workspace entries)`,
    `other commands (approved, or allowed by yolo): ${otherCommands(config, probe)} (sandbox ${config.mode}, from ${sourceText(config.source)})`,
    'secrets: the provider key is kept from commands and scrubbed from tool output',
  ];
}

function otherCommands(config: SandboxConfig, probe: SandboxProbe): string {
  if (config.mode === 'off') return 'run as written, no sandbox';
  if (!probe.ok) return `refused (the sandbox is set to ${config.mode} and bubblewrap is not usable)`;
  if (config.mode === 'read-only') return 'read-only sandbox';
  return `workspace-write sandbox (the workspace, added dirs and temp writable; ${config.network ? 'network on' : 'no network'})`;
}

function sourceText(source: SandboxSource): string {
  return source === 'flag' ? '--sandbox' : source === 'user settings' ? 'your settings' : 'the default';
}
