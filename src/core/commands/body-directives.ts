/**
 * Claude Code's directives in a custom command's body: `` !`git status` `` runs the command and
 * puts its output in its place; `@path` puts a workspace file's content there. Each passes the
 * session's permission gate as the bash or read_file call it is (asked in default mode unless
 * the command's `allowed-tools` allow it, refused in plan mode, refused by deny rules), and a
 * file is confined as read_file confines it. Only the body is read for directives: the
 * arguments the user typed are put in afterwards, as text.
 */
import { existsSync } from 'node:fs';
import type { ToolGate } from '../permissions/types.js';
import { resolveWorkspacePath } from '../platform/paths.js';
import type { Workspace } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { executeTool } from '../tools/registry.js';

/** How a body's directives are carried out. */
export interface DirectiveRunner {
  /** Runs `` !`command` ``; the text that takes its place. */
  run(command: string, signal: AbortSignal): Promise<string>;
  /** Reads `@path`; undefined when no such file exists (the `@` is prose then: `@octocat`). */
  read(file: string, signal: AbortSignal): Promise<string | undefined>;
}

/** `` !`…` ``: a command on one line between backticks, after a `!`. */
const SHELL = /!`([^`\n]+)`/g;
/** `@path` at the start of a line or after white space; `a@b.c` is an address, not a file. */
const FILE = /(^|[\s(])@([^\s`)'"]+)/gm;
/** Directives of one body at most: a body of ten thousand `` !`…` `` does not run ten thousand commands. */
export const MAX_DIRECTIVES = 20;

/** The body with every directive carried out, in order of appearance (one at a time). */
export async function expandDirectives(body: string, runner: DirectiveRunner, signal: AbortSignal): Promise<string> {
  if (!body.includes('!`') && !body.includes('@')) return body;
  let count = 0;
  const over = () => ++count > MAX_DIRECTIVES;
  const shells: string[] = [];
  for (const match of body.matchAll(SHELL)) {
    if (over()) break;
    shells.push(await runner.run(match[1]!.trim(), signal));
  }
  let i = 0;
  let out = body.replace(SHELL, (all) =>
    i < shells.length ? shells[i++]! : `${all} [not run: a command runs at most ${MAX_DIRECTIVES} directives]`,
  );
  const files = new Map<string, string | undefined>();
  for (const match of out.matchAll(FILE)) {
    const token = match[2]!.replace(/[.,;:!?]+$/, '');
    if (files.has(token) || over()) continue;
    files.set(token, await runner.read(token, signal));
  }
  out = out.replace(FILE, (all, lead: string, raw: string) => {
    const token = raw.replace(/[.,;:!?]+$/, '');
    const content = files.get(token);
    return content === undefined ? all : `${lead}${content}${raw.slice(token.length)}`;
  });
  return out;
}

/** The runner a session uses: the bash and read_file tools behind the session's gate, their output limited and scrubbed. */
export function gatedDirectiveRunner(options: {
  gate: ToolGate;
  tools: ToolRegistry;
  workspace: Workspace;
  limitOutput: OutputLimiter;
  /** Tells the user what ran (a notice on the session's stream). */
  notify: (text: string) => void;
}): DirectiveRunner {
  const call = async (name: string, args: Record<string, unknown>, label: string, signal: AbortSignal) => {
    const tool = options.tools.get(name);
    if (!tool) return { ok: false, content: `${name} is not available` };
    const parsed = options.tools.parseArgs(tool, args);
    if (!parsed.ok) return { ok: false, content: parsed.error };
    const verdict = await options.gate({ tool, args: parsed.args, label }, signal);
    if (!verdict.allowed) return { ok: false, content: verdict.message };
    const output = await executeTool(tool, parsed.args, {
      signal,
      workspace: options.workspace,
      callId: `command-${name}`,
      ...(verdict.sandbox ? { sandbox: verdict.sandbox } : {}),
    });
    const limited = options.limitOutput(output, name);
    return { ok: !limited.isError, content: limited.content };
  };
  return {
    async run(command, signal) {
      const result = await call('bash', { command }, command, signal);
      options.notify(`the command's !\`${command}\` ${result.ok ? 'ran' : 'failed or was not run'}`);
      return result.ok ? result.content : `[!\`${command}\` was not run or failed: ${result.content}]`;
    },
    async read(file, signal) {
      // A repository's command must not carry a file from elsewhere (`@~/.ssh/id_rsa`) into the prompt.
      const where = resolveWorkspacePath(options.workspace, file);
      if (!where.inside) return existsSync(where.absolute) ? `[@${file} was not read: it is outside the workspace]` : undefined;
      const result = await call('read_file', { path: file }, file, signal);
      // A path that names nothing is prose; a file the gate or the tool refuses says so.
      if (!result.ok && result.content.startsWith('File not found')) return undefined;
      return result.ok ? result.content : `[@${file} was not read: ${result.content}]`;
    },
  };
}
