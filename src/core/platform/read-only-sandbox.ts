/**
 * The environment for a bash command that runs without anyone's word because the policy
 * judged it read-only. The judgement is about the command line; this backs it against what
 * the line does not show: programs named by the repository's own git config (fsmonitor,
 * hooks, diff and filter drivers, signature checkers, transports) and programs planted on a
 * PATH entry inside the workspace. Every git in the command line reads the overrides, because
 * GIT_CONFIG_COUNT/KEY/VALUE act like `-c` and outrank every config file.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Workspace } from './paths.js';
import { isWithin, realPathOf } from './paths.js';

/** A program that refuses with a reason, standing in for one the repository named. */
const refuse = (what: string, fix: string): string =>
  `echo "outrider: this repository's git config sets ${what}; it is switched off for commands that run without approval. ${fix}" >&2; false`;

const EXTERNAL_DIFF_STAND_IN = refuse('an external diff program', "Add --no-ext-diff to see git's own diff.");

/** Set for every sandboxed command, whatever the config says. */
export const FIXED_GIT_OVERRIDES: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.sshCommand', 'false'],
  ['core.alternateRefsCommand', 'false'],
  // Signature checks run gpg.program (log.showSignature, %G? in format.pretty or a pretty alias).
  ['log.showSignature', 'false'],
  ['gpg.program', 'false'],
  ['gpg.openpgp.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['gpg.ssh.program', 'false'],
  // No transport at all: a partial clone's lazy fetch would run ssh, ext:: commands or helpers.
  ['protocol.allow', 'never'],
  // A submodule is its own repository with its own config, which we do not read: leave it alone.
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['submodule.recurse', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

/** Config keys the repository may define under any name, and what each is replaced with. */
const DRIVER_KEYS: readonly { pattern: RegExp; value: (name: string) => string; also?: (sub: string) => [string, string][] }[] = [
  // An empty filter command means "no filter"; required=false keeps git from dying without it.
  {
    pattern: /^filter\.(.+)\.(clean|smudge|process|required)$/,
    value: (name) => (name.endsWith('.required') ? 'false' : ''),
    also: (sub) => [[`filter.${sub}.required`, 'false']],
  },
  // cat is the identity conversion: the diff shows the file as it is, as with --no-textconv.
  { pattern: /^diff\.(.+)\.textconv$/, value: () => 'cat' },
  { pattern: /^diff\.(.+)\.command$/, value: () => EXTERNAL_DIFF_STAND_IN },
  { pattern: /^diff\.external$/, value: () => EXTERNAL_DIFF_STAND_IN },
  { pattern: /^merge\.(.+)\.driver$/, value: () => 'false' },
  { pattern: /^protocol\.(.+)\.allow$/, value: () => 'never' },
  // No pager runs without a terminal; should one ever, it is not the repository's.
  { pattern: /^pager\.(.+)$/, value: () => 'false' },
];

/**
 * The overrides for one repository: a stand-in for every driver key its untrusted config
 * files define, then the fixed ones (later entries win; the two sets never share a key).
 */
export function gitOverrides(untrustedNames: readonly string[]): [string, string][] {
  const out = new Map<string, string>();
  for (const name of untrustedNames) {
    // Section and key names are case-insensitive, subsections are not.
    const normalized = normalizeConfigName(name);
    for (const key of DRIVER_KEYS) {
      const match = key.pattern.exec(normalized);
      if (!match) continue;
      out.set(normalized, key.value(normalized));
      for (const [k, v] of key.also?.(match[1]) ?? []) out.set(k, v);
    }
  }
  for (const [key, value] of FIXED_GIT_OVERRIDES) out.set(key, value);
  return [...out];
}

/** `Filter.Evil.Clean` → `filter.Evil.clean`: lower-case section and key, subsection kept. */
function normalizeConfigName(name: string): string {
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  if (first < 0) return name.toLowerCase();
  if (first === last) return name.toLowerCase();
  return `${name.slice(0, first).toLowerCase()}${name.slice(first, last)}${name.slice(last).toLowerCase()}`;
}

/** Scopes whose config files the user wrote; everything else (local, worktree, unknown) is the repository's. */
const TRUSTED_SCOPES = new Set(['global', 'system', 'command']);

/**
 * The names untrusted config sets, from `git config --list --show-scope --show-origin
 * --name-only -z` (scope, origin, name; NUL-separated). A trusted scope read from a file in
 * the workspace (HOME is the workspace, GIT_CONFIG_GLOBAL points into it) is untrusted too:
 * the model can write that file.
 */
export function untrustedConfigNames(output: string, workspace: Workspace): string[] {
  const writable = (origin: string): boolean => {
    if (!origin.startsWith('file:')) return false;
    const file = origin.slice('file:'.length);
    return !path.isAbsolute(file) || inWorkspace(file, workspace);
  };
  const fields = output.split('\0');
  const names: string[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, name] = [fields[i], fields[i + 1], fields[i + 2]];
    if (!TRUSTED_SCOPES.has(scope) || writable(origin)) names.push(name);
  }
  return names;
}

/** Appends `pairs` to the GIT_CONFIG_COUNT entries `base` already has (the user's own). */
export function gitConfigEnv(base: NodeJS.ProcessEnv, pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const existing = Number(base.GIT_CONFIG_COUNT);
  const start = Number.isInteger(existing) && existing > 0 ? existing : 0;
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(start + pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key;
    env[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return env;
}

/**
 * PATH without the entries a repository can fill: empty and relative ones (the current
 * directory) and any inside the workspace, such as `node_modules/.bin`.
 */
export function hardenedPath(value: string | undefined, workspace: Workspace): string {
  return (value ?? '')
    .split(path.delimiter)
    .filter((entry) => entry !== '' && path.isAbsolute(entry) && !inWorkspace(entry, workspace))
    .join(path.delimiter);
}

/** An absolute path in the workspace root or an added directory, by its name or its real path. */
function inWorkspace(absolute: string, workspace: Workspace): boolean {
  const real = realPathOf(path.resolve(absolute));
  return [workspace.root, ...workspace.extraDirs].some((dir) => isWithin(dir, absolute) || isWithin(dir, real));
}

/**
 * Variables naming a file that adds to what runs: a startup file bash -c sources, rg's
 * flags (`--pre=…`). Dropped when the file is in the workspace, where the model can write it.
 */
const FILES_THAT_ADD_COMMANDS = ['BASH_ENV', 'ENV', 'RIPGREP_CONFIG_PATH'];

export type SandboxEnv = { ok: true; env: NodeJS.ProcessEnv } | { ok: false; error: string };

/** How long reading the git config may take before the command is refused. */
const CONFIG_LIST_TIMEOUT_MS = 10_000;

/**
 * The sandboxed environment for one command in the workspace root. Reads the names every
 * config file sets, and where from, first (that runs no program); refuses when they cannot
 * be read, since the overrides would then be incomplete.
 */
export async function readOnlySandboxEnv(options: {
  workspace: Workspace;
  base: NodeJS.ProcessEnv;
  signal: AbortSignal;
}): Promise<SandboxEnv> {
  const { workspace, base, signal } = options;
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of FILES_THAT_ADD_COMMANDS) {
    const value = env[name];
    if (value !== undefined && inWorkspace(path.resolve(workspace.root, value), workspace)) delete env[name];
  }
  Object.assign(env, {
    PATH: hardenedPath(base.PATH, workspace),
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_PROTOCOL_FROM_USER: '0',
  });
  const listed = await listConfigNames(workspace.root, env, signal);
  if (!listed.ok) return listed;
  const names = untrustedConfigNames(listed.output, workspace);
  return { ok: true, env: { ...env, ...gitConfigEnv(base, gitOverrides(names)) } };
}

function listConfigNames(
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<{ ok: true; output: string } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['config', '--list', '--show-scope', '--show-origin', '--name-only', '-z'],
      { cwd, env, signal, timeout: CONFIG_LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve({ ok: true, output: stdout });
        // No git on PATH: no git can run inside the command either.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolve({ ok: true, output: '' });
        const why = (stderr.split('\n').find((line) => line.trim() !== '') ?? error.message).trim();
        resolve({
          ok: false,
          error:
            `bash did not run: it would run without approval because it only reads, which first needs the ` +
            `repository's git config read to switch off the programs it names, and \`git config --list\` failed (${why}). ` +
            `Fix the git config, or ask the user to run the command.`,
        });
      },
    );
  });
}
