import { createHash } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { readConfigFile } from '../config/read-config-file.js';
import { writeFileAtomic } from '../platform/atomic-write.js';

/** A sign-in is a few kilobytes; anything much larger is not one. */
const MAX_BYTES = 256 * 1024;

/**
 * What outrider keeps of one remote server's sign-in. Secrets: the file is 0600 in a 0700
 * folder, and nothing of it is ever logged, published or written anywhere else.
 */
export interface StoredAuth {
  /** The server's URL as configured (the key; kept to tell a person which file is whose). */
  serverUrl: string;
  /** The dynamic registration's answer, as the SDK handed it over (with its `issuer`). */
  client?: OAuthClientInformationMixed;
  /** The tokens, as the SDK handed them over (with their `issuer`): the refresh token too. */
  tokens?: OAuthTokens;
  /** The PKCE code verifier of the sign-in under way. */
  codeVerifier?: string;
}

/** Which server a file belongs to: the URL without its fragment (a fragment never reaches a server). */
export function serverKey(url: URL): string {
  const key = new URL(url.href);
  key.hash = '';
  return key.href;
}

/**
 * Sign-ins on disk, one file per server URL: `<host>-<hash of the URL>.json`, so two servers
 * never share tokens, and a person can tell which file to delete. Each read goes to the disk
 * (another outrider may have refreshed the tokens since); writes in this process go one at a
 * time (read, change, write), each an atomic rename.
 */
export class OAuthStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly dir: string) {}

  fileFor(url: URL): string {
    const key = serverKey(url);
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 24);
    const host = url.host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 80);
    return path.join(this.dir, `${host}-${hash}.json`);
  }

  /** What is stored for `url`; an empty record when nothing is (or the file is not one of ours). */
  read(url: URL): StoredAuth {
    const empty: StoredAuth = { serverUrl: serverKey(url) };
    // A regular file only, and small: a FIFO or a device put there would hang or flood the start.
    const text = readConfigFile(this.fileFor(url), { maxBytes: MAX_BYTES, what: 'stored MCP sign-in' });
    if (text === undefined) return empty;
    const parsed = parseStored(text);
    // A file whose URL is not this server's (a hash collision, or one copied by hand) is not used.
    return parsed && parsed.serverUrl === empty.serverUrl ? parsed : empty;
  }

  /** Changes what is stored for `url`: `change` gets the record as it is on disk now. */
  update(url: URL, change: (stored: StoredAuth) => StoredAuth): Promise<void> {
    const next = this.queue.then(async () => {
      const stored = this.read(url);
      await this.write(url, change(stored));
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /** Forgets `url`'s sign-in (the file is removed). */
  remove(url: URL): Promise<void> {
    const next = this.queue.then(() => rm(this.fileFor(url), { force: true }));
    this.queue = next.catch(() => {});
    return next;
  }

  private async write(url: URL, stored: StoredAuth): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // A folder made earlier (or by hand) with a looser mode is narrowed: the files inside are secrets.
    await chmod(this.dir, 0o700);
    await writeFileAtomic(this.fileFor(url), `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
}

function parseStored(text: string): StoredAuth | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || typeof (value as StoredAuth).serverUrl !== 'string') return undefined;
    const stored = value as StoredAuth;
    return {
      serverUrl: stored.serverUrl,
      ...(isObject(stored.client) && typeof stored.client.client_id === 'string' ? { client: stored.client } : {}),
      ...(isObject(stored.tokens) && typeof stored.tokens.access_token === 'string' ? { tokens: stored.tokens } : {}),
      ...(typeof stored.codeVerifier === 'string' ? { codeVerifier: stored.codeVerifier } : {}),
    };
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
