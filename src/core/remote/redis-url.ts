/**
 * The queue's address as the user writes it (`redis://`, `rediss://` for TLS, a password in
 * it): parsed once into connection options, and described for people without the password.
 * Every message that could hold the URL or the password passes `redactRedisText`.
 */
import { isIP } from 'node:net';
import type { RedisOptions } from 'ioredis';
import { RemoteQueueError } from './remote-errors.js';

/** A parsed queue address; `options` goes to ioredis, `description` to people. */
export interface RedisAddress {
  options: RedisOptions;
  /** `redis://user:***@host:port/db`: the URL with any password replaced. */
  description: string;
  /** The secret parts (password, and the URL as typed), for scrubbing text that may quote them. */
  secrets: readonly string[];
}

const REDACTED_PASSWORD = '***';

/** The URL with its password (or a lone token in the user part) replaced by `***`; never throws. */
export function describeRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: say nothing of what was typed after the scheme, it may be a secret.
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
    return `${scheme}(unreadable address)`;
  }
  const user = parsed.username;
  const auth = parsed.password !== '' ? `${user}:${REDACTED_PASSWORD}@` : user ? `${user}@` : '';
  return `${parsed.protocol}//${auth}${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/** Parses a queue URL; throws RemoteQueueError saying what a valid one looks like. */
export function parseRedisUrl(url: string): RedisAddress {
  const description = describeRedisUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RemoteQueueError(
      `invalid queue address ${description}: expected redis://[:password@]host[:port][/db] or rediss://…`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new RemoteQueueError(
      `invalid queue address ${description}: use redis:// (or rediss:// for TLS), e.g. redis://127.0.0.1:6379`,
    );
  }
  if (!parsed.hostname) throw new RemoteQueueError(`invalid queue address ${description}: it names no host`);
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) {
    throw new RemoteQueueError(`invalid queue address ${description}: the path must be a database number such as /0`);
  }
  const username = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const options: RedisOptions = {
    host,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(db !== '' ? { db: Number(db) } : {}),
    ...(username ? { username } : {}),
    ...(password !== '' ? { password } : {}),
    // TLS checks the certificate against the host name (SNI takes names only, not addresses).
    ...(parsed.protocol === 'rediss:' ? { tls: isIP(host) ? {} : { servername: host } } : {}),
  };
  // A password shorter than 4 characters is not searched for in text (it would mangle every
  // message); the URL that holds it always is.
  const secrets = password === '' ? [] : [url, ...[password, parsed.password].filter((s) => s.length >= 4)];
  return { options, description, secrets: [...new Set(secrets)] };
}

/** `text` with every secret part of the address replaced, so an error can be shown or logged. */
export function redactRedisText(text: string, address: Pick<RedisAddress, 'secrets' | 'description'>): string {
  let out = text;
  // Longest first: the URL as typed holds the password.
  for (const secret of [...address.secrets].sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(secret.includes('://') ? address.description : REDACTED_PASSWORD);
  }
  return out;
}
