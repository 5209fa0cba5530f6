/**
 * lite-headers.ts: the Headers and FormData the bundled SDK modules see (scripts/build.mjs).
 * Each behaviour is checked beside Node's own Headers, so the two cannot drift apart unseen.
 */
import { describe, expect, it } from 'vitest';
import { LiteHeaders, NoFormData } from '../../../src/core/providers/lite-headers.js';

describe.each([
  ['LiteHeaders', LiteHeaders],
  // The same interface; the project's TypeScript lib has no iterable DOM Headers.
  ['Node Headers', Headers as unknown as typeof LiteHeaders],
])('%s', (_name, HeadersClass) => {
  it('matches names case-insensitively, appends with ", ", trims values, deletes', () => {
    const headers = new HeadersClass({ 'Content-Type': ' application/json\t' });
    headers.append('X-Many', 'one');
    headers.append('x-many', 'two');
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('X-MANY')).toBe('one, two');
    expect(headers.has('x-Many')).toBe(true);
    headers.set('x-many', 'three');
    expect(headers.get('x-many')).toBe('three');
    headers.delete('X-Many');
    expect(headers.get('x-many')).toBeNull();
    expect(headers.has('x-many')).toBe(false);
  });

  it('takes pairs, records, and another Headers of either kind; iterates lowercase pairs', () => {
    const fromPairs = new HeadersClass([
      ['A', '1'],
      ['a', '2'],
    ]);
    expect(fromPairs.get('a')).toBe('1, 2');
    const copy = new HeadersClass(new LiteHeaders({ B: '3' }));
    expect([...copy]).toEqual([['b', '3']]);
    const fromNode = new HeadersClass(new Headers({ C: '4' }) as unknown as LiteHeaders);
    expect([...fromNode.entries()]).toEqual([['c', '4']]);
    const seen: string[] = [];
    fromPairs.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual(['a=1, 2']);
    expect([...new HeadersClass({ X: '1' }).keys()]).toEqual(['x']);
    expect([...new HeadersClass({ X: '1' }).values()]).toEqual(['1']);
  });

  it('keeps each Set-Cookie apart', () => {
    const headers = new HeadersClass();
    headers.append('Set-Cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
  });
});

describe('NoFormData', () => {
  it('nothing is an instance of it, and building one says why it is missing', () => {
    const bodies: unknown[] = [{}, '{"a":1}', new Uint8Array(1)];
    expect(bodies.some((body) => body instanceof NoFormData)).toBe(false);
    expect(() => new NoFormData()).toThrow(/multipart uploads are not supported/);
  });
});
