import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The local end of a sign-in: where the browser comes back with the authorization code. */
export interface CallbackWait {
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUrl: string;
  /**
   * The authorization code, once a browser brings it back with the right `state`. Rejects when
   * the authorization server refused, or with `signal`'s reason when it aborts.
   */
  code: Promise<string>;
  /** Stops listening (at once: an open browser connection is cut). */
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at a port the system picks, for one answer to the sign-in whose state
 * is `state`, until `signal` aborts. An answer with another state is refused (the page says so) and the wait goes on:
 * it is not this sign-in's, and someone else's request must not end the user's. The pages are
 * plain text: nothing from the query is ever read as HTML.
 */
export async function listenForCallback(options: {
  state: string;
  /** The server being signed in to, for the page the browser shows. */
  serverName: string;
  /** Ends the wait, its reason the rejection (the sign-in's deadline, or the user giving up). */
  signal: AbortSignal;
}): Promise<CallbackWait> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  // Whoever awaits the code may not be awaiting yet when the wait ends (a timeout during discovery).
  code.catch(() => {});
  let over = false;
  const finish = (outcome: { code: string } | { error: Error }): void => {
    if (over) return;
    over = true;
    if ('code' in outcome) settle?.resolve(outcome.code);
    else settle?.reject(outcome.error);
  };

  const server = http.createServer((request, response) => {
    const reply = (status: number, text: string): void => {
      response.writeHead(status, {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
      });
      response.end(`${text}\n`);
    };
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.method !== 'GET' || url.pathname !== '/callback') return reply(404, 'Not found.');
    if (over) return reply(410, 'This sign-in is over. Start a new one from outrider if you need to.');
    const params = url.searchParams;
    if (!sameState(params.get('state'), options.state)) {
      return reply(
        400,
        'This answer does not belong to the sign-in outrider is waiting for (its state does not match), so it was refused. ' +
          'If you started the sign-in, start it again from outrider.',
      );
    }
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description');
      reply(400, `The sign-in to ${options.serverName} was refused: ${error}${description ? ` (${description})` : ''}.`);
      return finish({ error: new Error(`the authorization server refused: ${error}${description ? ` (${description})` : ''}`) });
    }
    const authorizationCode = params.get('code');
    if (!authorizationCode) return reply(400, 'This answer carries no authorization code, so it was refused.');
    reply(200, `Signed in to ${options.serverName}. You can close this tab and go back to outrider.`);
    finish({ code: authorizationCode });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;

  const onAbort = (): void => finish({ error: asError(options.signal.reason) });
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  return {
    redirectUrl,
    code,
    close: async () => {
      finish({ error: new Error('the sign-in is over') });
      options.signal.removeEventListener('abort', onAbort);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Compares states without telling a caller, by timing, how much of one was right. */
function sameState(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function asError(reason: unknown): Error {
  if (reason instanceof Error) return reason;
  return new Error(typeof reason === 'string' ? reason : 'the sign-in was cancelled');
}
