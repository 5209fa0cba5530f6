/** Characters that would hide or reorder what a prompt shows: controls, bidi overrides, zero-width marks. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** Text from an untrusted source with invisible and control characters written as `\u{…}` escapes. */
export function safeText(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}
