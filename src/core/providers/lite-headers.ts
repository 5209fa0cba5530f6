/**
 * Stand-ins for the `Headers` and `FormData` globals, for the SDK modules only. In Node both
 * globals are lazy getters that load undici (Node's fetch, its parser and its web classes)
 * the first time anything touches them, and the SDKs touch them on every request (`new
 * Headers()` while building headers, `body instanceof FormData` while building the body).
 * scripts/build.mjs points the SDK modules' two free names at these classes, so a run whose
 * fetch is http-fetch.ts never loads undici. Tests run the SDKs unbundled, on the real globals.
 *
 * LiteHeaders keeps what the SDKs and http-fetch.ts use of `Headers`: case-insensitive names,
 * values appended with ", ", whitespace trimmed, iteration as lowercase [name, value] pairs
 * (in insertion order, not sorted), `getSetCookie`. No guard (immutable headers) and no
 * validation of names or values: node:http refuses invalid ones when the request is sent.
 */

/** What a Headers constructor accepts: another Headers (any implementation), pairs, or a record. */
export type HeadersInit =
  | LiteHeaders
  | Iterable<readonly [string, string]>
  | { forEach(fn: (value: string, name: string) => void): void }
  | Record<string, string | readonly string[] | undefined>;

/** Strips leading and trailing HTTP whitespace, as the Fetch standard normalizes a value. */
function normalize(value: unknown): string {
  return String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

export class LiteHeaders implements Iterable<[string, string]> {
  readonly #map = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: HeadersInit | null) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError('Headers: init must be an object, an array of pairs or a Headers');
    if (init instanceof LiteHeaders) {
      for (const [name, value] of init.#map) this.#map.set(name, value);
      this.#cookies.push(...init.#cookies);
    } else if (Symbol.iterator in init && typeof init[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each header pair must have a name and a value');
        this.append(pair[0], pair[1]);
      }
    } else {
      for (const [name, value] of Object.entries(init as Record<string, unknown>)) {
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const item of value) this.append(name, item);
        else this.append(name, value);
      }
    }
  }

  append(name: string, value: unknown): void {
    const key = String(name).toLowerCase();
    const text = normalize(value);
    if (key === 'set-cookie') this.#cookies.push(text);
    const previous = this.#map.get(key);
    this.#map.set(key, previous === undefined ? text : `${previous}, ${text}`);
  }

  set(name: string, value: unknown): void {
    const key = String(name).toLowerCase();
    const text = normalize(value);
    if (key === 'set-cookie') this.#cookies.splice(0, this.#cookies.length, text);
    this.#map.set(key, text);
  }

  get(name: string): string | null {
    return this.#map.get(String(name).toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(String(name).toLowerCase());
  }

  delete(name: string): void {
    const key = String(name).toLowerCase();
    if (key === 'set-cookie') this.#cookies.length = 0;
    this.#map.delete(key);
  }

  /** Each Set-Cookie value on its own (they cannot be joined with commas). */
  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(fn: (value: string, name: string, headers: LiteHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#map) fn.call(thisArg, value, name, this);
  }

  keys(): IterableIterator<string> {
    return this.#map.keys();
  }

  values(): IterableIterator<string> {
    return this.#map.values();
  }

  entries(): IterableIterator<[string, string]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.#map.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

/**
 * Nothing is an instance of it, so the SDKs' `body instanceof FormData` is false for the JSON
 * bodies outrider sends. Building one (a multipart upload, which outrider never makes) fails
 * with a message that says why, rather than sending a broken body.
 */
export class NoFormData {
  constructor() {
    throw new Error(
      "FormData is not available in outrider's bundled model SDKs (it is stubbed so that a run does not load undici); multipart uploads are not supported.",
    );
  }
}
