import { lstat } from 'node:fs/promises';
import { type McpServerSpec, expandServer } from '../config/mcp-servers.js';
import { isMissing } from '../platform/fs-errors.js';
import { realTimers } from '../platform/timers.js';
import { type CheckOptions, checkMcpServers } from './check-servers.js';
import { signInToServer } from './oauth-sign-in.js';
import { OAuthStore } from './oauth-store.js';
import type { McpServerStatus } from './types.js';

/**
 * The server a sign-in (or sign-out) by name is for, or why there is none to do: no server
 * has that name, it is a local program, its entry cannot be expanded, or it sets its own
 * Authorization header (outrider's stored sign-in is then never used).
 */
export type SignInTarget =
  | { kind: 'remote'; spec: McpServerSpec; url: URL }
  | { kind: 'unknown'; known: string[] }
  | { kind: 'stdio'; spec: McpServerSpec }
  | { kind: 'own-authorization'; spec: McpServerSpec; url: URL }
  | { kind: 'invalid'; spec: McpServerSpec; error: string };

export function signInTarget(specs: readonly McpServerSpec[], name: string, env: NodeJS.ProcessEnv): SignInTarget {
  const spec = specs.find((s) => s.name === name);
  if (!spec) return { kind: 'unknown', known: specs.map((s) => s.name) };
  const expanded = expandServer(spec.entry, env);
  if (!expanded.ok) return { kind: 'invalid', spec, error: expanded.error };
  const server = expanded.server;
  if (server.type === 'stdio') return { kind: 'stdio', spec };
  const own = Object.keys(server.headers).some((header) => header.toLowerCase() === 'authorization');
  return own ? { kind: 'own-authorization', spec, url: server.url } : { kind: 'remote', spec, url: server.url };
}

/** How a sign-in by name ended (a failure of the sign-in itself throws). */
export type SignInOutcome =
  /** Signed in; `status` is the server's state when connected once with the new tokens. */
  | { kind: 'signed-in'; status: McpServerStatus }
  /** It answered without any sign-in: there is nothing to sign in to. */
  | { kind: 'needs-none'; status: McpServerStatus }
  /** It could not be reached before any sign-in (a failure that is not a 401). */
  | { kind: 'unreachable'; status: McpServerStatus };

export interface SignInByNameOptions extends CheckOptions {
  signal: AbortSignal;
  /** The page to open; show it (and open a browser where one can be). */
  onAuthorizationUrl: (url: string) => void;
  /** How long the browser may take (5 minutes unless told). */
  timeoutMs?: number;
}

/**
 * Signs in to a remote server outside a session: first connects as a session would (a server
 * that answers without a sign-in needs none; one that fails otherwise cannot be signed in to),
 * then the OAuth sign-in of `/mcp login` (oauth-sign-in.ts: the tokens go to the store), then
 * connects once more with them. Throws the sign-in's error (cancelled: `signal`'s).
 */
export async function signInByName(
  target: Extract<SignInTarget, { kind: 'remote' }>,
  options: SignInByNameOptions,
): Promise<SignInOutcome> {
  const store = new OAuthStore(options.authDir);
  const [before] = await checkMcpServers([target.spec], options);
  options.signal.throwIfAborted();
  if (before!.state === 'failed') return { kind: 'unreachable', status: before! };
  if (before!.state === 'ready' && !hasTokens(store, target.url)) return { kind: 'needs-none', status: before! };
  await signInToServer({
    name: target.spec.name,
    url: target.url,
    store,
    timers: options.timers ?? realTimers,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    signal: options.signal,
    onAuthorizationUrl: options.onAuthorizationUrl,
  });
  const [after] = await checkMcpServers([target.spec], options);
  return { kind: 'signed-in', status: after! };
}

/** Forgets a server's stored sign-in (its file removed); true when there was one (even one that could not be read). */
export async function signOutByName(target: { url: URL }, authDir: string): Promise<boolean> {
  const store = new OAuthStore(authDir);
  const file = store.fileFor(target.url);
  const had = await lstat(file).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
  await store.remove(target.url);
  return had;
}

/** Whether tokens are stored for `url`; a file that cannot be read holds none (a server that answered did not use it). */
function hasTokens(store: OAuthStore, url: URL): boolean {
  try {
    return store.read(url).tokens !== undefined;
  } catch {
    return false;
  }
}
