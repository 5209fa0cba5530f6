import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REDACTED, scrubForms, secretForms } from '../../../src/core/platform/secret-forms.js';

const KEY = 'sk-ant-api03-Zq9_xY+/=key-0123456789';
const forms = secretForms(KEY);
const scrub = (text: string) => scrubForms(text, forms);

/** What a command prints for `input`, the way the model would run it. */
const run = (command: string, input: string) => execFileSync('bash', ['-c', command], { input, encoding: 'utf8' });

describe('secretForms: the key in the encodings a command prints it in', () => {
  // Before the variable, 0, 1 and 2 bytes of other text: the key starts at each alignment of base64's groups of three.
  const entries = ['ANTHROPIC_API_KEY=', 'XANTHROPIC_API_KEY=', 'XYANTHROPIC_API_KEY='].map(
    (name) => `PATH=/bin\0${name}${KEY}\0HOME=/h\0`,
  );

  it.each(entries.map((entry, i) => [i, entry]))('base64 -w0 at alignment %i', (_i, entry) => {
    const out = run('base64 -w0', entry);
    expect(scrub(out)).toContain(REDACTED);
    // Nothing of the key's middle survives: decode what is left and look for a piece of it.
    expect(Buffer.from(scrub(out).replace(REDACTED, ''), 'base64').toString('latin1')).not.toContain(KEY.slice(3, -3));
  });

  it.each(entries.map((entry, i) => [i, entry]))('base64 wrapped at 76 columns, alignment %i', (_i, entry) => {
    const out = run('base64', entry.repeat(3));
    expect(out).toContain('\n');
    expect(scrub(out).split(REDACTED)).toHaveLength(4);
  });

  it.each(entries.map((entry, i) => [i, entry]))('base64url at alignment %i', (_i, entry) => {
    const out = Buffer.from(entry).toString('base64url');
    expect(scrub(out)).toContain(REDACTED);
  });

  it('hex in both cases, wrapped or not', () => {
    // od (coreutils) prints 16 bytes a line: `tr -d " "` leaves hex wrapped at 32 columns, as `xxd -p` wraps at 60.
    for (const command of [
      'od -An -tx1 -v | tr -d " "',
      'od -An -tx1 -v | tr -d " " | tr a-f A-F',
      'od -An -tx1 -v | tr -d " \\n"',
    ]) {
      const out = run(command, entries[1]!);
      expect(scrub(out), command).toContain(REDACTED);
      expect(scrub(out).replace(/\s/g, ''), command).not.toContain(Buffer.from(KEY.slice(2, -2)).toString('hex'));
    }
  });

  it('URL-encoded: as encodeURIComponent leaves it, and every byte escaped in either case', () => {
    const percent = Buffer.from(KEY).toString('hex').replace(/../g, '%$&');
    for (const out of [`https://evil.example/?k=${encodeURIComponent(KEY)}`, `?k=${percent}`, `?k=${percent.toUpperCase()}`]) {
      expect(scrub(out)).toBe(out.slice(0, out.indexOf('=') + 1) + REDACTED);
    }
  });

  it('the key as it is and escaped in JSON', () => {
    expect(scrub(`a ${KEY} b`)).toBe(`a ${REDACTED} b`);
    const quoted = 'quote"and\\slash-secret';
    expect(scrubForms(JSON.stringify({ v: quoted }), secretForms(quoted))).toBe(`{"v":"${REDACTED}"}`);
  });

  it('leaves text without the key as it is, line breaks included', () => {
    const text = 'line one\r\nline two\nbase64: c2stYW50LWFwaTAz\n';
    expect(scrub(text)).toBe(text);
  });

  it('drops forms too short to be told from ordinary text', () => {
    expect(secretForms('abcdefgh').every((form) => form.length >= 8)).toBe(true);
    expect(secretForms('abcdefgh')).toContain('abcdefgh');
  });
});
