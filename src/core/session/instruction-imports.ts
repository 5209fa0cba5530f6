/**
 * The `@path` imports of an instruction file, as Claude Code writes them: `@` at the start of
 * a line or after a space or `(`, then a path (`@docs/style.md`, `@~/notes.md`, `@../x.md`,
 * `\ ` for a space in it). Nothing inside a fenced code block or an inline code span counts:
 * `npm i @types/node` in backticks is an example, not an import. Indented code blocks are not
 * told apart from indented list text, so `@` in them still counts; an import only ever reads
 * a file that exists within the allowed folders, so that costs nothing but a line of prompt.
 */
export function importTokens(text: string): string[] {
  const tokens: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      const closes = marker !== undefined && marker[0] === fence.char && marker.length >= fence.length && line.trim() === marker;
      if (closes) fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = { char: marker[0]!, length: marker.length };
      continue;
    }
    const prose = line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, ' ');
    for (const match of prose.matchAll(/(?:^|[\s(])@((?:\\ |[^\s\\()`])+)/g)) tokens.push(match[1]!.replace(/\\ /g, ' '));
  }
  return tokens;
}

/** The token without the punctuation a sentence puts after it (`@README.md.` → `@README.md`). */
export function withoutTrailingPunctuation(token: string): string {
  return token.replace(/[.,;:!?'"\]]+$/, '');
}
