/**
 * A secret in the encodings a command can print it in: the scrubber looks for every one, so
 * `base64`, `xxd -p` or a URL query cannot carry the provider key past it.
 */

/** What a found secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * Encoded forms shorter than this are not looked for: a form made of so few characters could
 * turn up in ordinary output (the base64 forms of a secret drop up to two leading bytes).
 */
const MIN_FORM_LENGTH = 8;

/**
 * The forms `secret` can appear in within other text:
 * - as it is, and escaped inside a JSON string;
 * - base64 and base64url, at each of the three alignments a secret can start at in an encoded
 *   stream: the form for alignment `s` encodes the secret from its byte `s` on, whole groups of
 *   three bytes only, which is exactly what any encoding of a text holding the secret at that
 *   alignment contains (its first and last characters also depend on the bytes around it);
 * - hex, lower and upper case;
 * - URL-encoded: as `encodeURIComponent` leaves it, and every byte as `%XX` in either case.
 * Longest first, so a form that contains another is replaced whole.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([secret, JSON.stringify(secret).slice(1, -1)]);
  for (const skip of [0, 1, 2]) {
    const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    if (whole.length === 0) continue;
    forms.add(whole.toString('base64'));
    forms.add(whole.toString('base64url'));
  }
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  forms.add(encodeURIComponent(secret));
  const percent = hex.replace(/../g, '%$&');
  forms.add(percent);
  forms.add(percent.toUpperCase());
  return [...forms].filter((form) => form.length >= MIN_FORM_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * `text` with every one of `forms` replaced by `[redacted]`, also where line breaks cut a form
 * (`base64` wraps its output at 76 columns, `xxd -p` at 60): those are found in the text with
 * its line breaks taken out, and the span they cover in the text, breaks included, is replaced.
 */
export function scrubForms(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  if (!/[\r\n]/.test(out)) return out;
  return scrubAcrossLineBreaks(out, forms);
}

function scrubAcrossLineBreaks(text: string, forms: readonly string[]): string {
  const flat = text.replace(/[\r\n]/g, '');
  const found = forms.filter((form) => flat.includes(form));
  if (found.length === 0) return text;
  // Where each character of `flat` sits in `text`.
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] !== '\r' && text[i] !== '\n') at.push(i);
  const spans: Array<[number, number]> = [];
  for (const form of found) {
    for (let i = flat.indexOf(form); i !== -1; i = flat.indexOf(form, i + form.length)) {
      spans.push([at[i]!, at[i + form.length - 1]! + 1]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue;
    out += text.slice(from, Math.max(from, start)) + (start >= from ? REDACTED : '');
    from = end;
  }
  return out + text.slice(from);
}
