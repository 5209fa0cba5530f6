import type { CustomCommand } from './command-files.js';

/** A prompt that names a custom command, split: `/frontend:component Button primary`. */
export interface CommandCall {
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

/** What a prompt becomes: the command's body with its arguments, and the tools the command allows. */
export interface ExpandedPrompt {
  prompt: string;
  command: CustomCommand;
}

/** A longer argument list than this is a paste, not arguments: kept whole in $ARGUMENTS, none split. */
const MAX_SPLIT_ARGS_CHARS = 100_000;
/** What one expansion may grow to: a body of 25,000 `$ARGUMENTS` and a long paste must not fill the memory. */
export const MAX_EXPANSION_CHARS = 10 * 1024 * 1024;

/**
 * `/name args` at the start of the prompt: a name as commands are named (letters, digits, `-`,
 * `_`, `.`, namespaces joined by `:`) followed by white space or the end. `/usr/bin is odd` is
 * no call (a `/` follows the name); a call of a name no command has stays an ordinary prompt.
 */
export function parseCommandCall(prompt: string): CommandCall | undefined {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_.-]*(?::[A-Za-z0-9][A-Za-z0-9_.-]*)*)(?=\s|$)/.exec(prompt.trimStart());
  if (!match) return undefined;
  return { name: match[1]!, args: prompt.trimStart().slice(match[0].length).trim() };
}

/** The prompt a command call becomes; undefined when the prompt names no known command. */
export function expandCommand(prompt: string, commands: ReadonlyMap<string, CustomCommand>): ExpandedPrompt | undefined {
  const call = parseCommandCall(prompt);
  if (!call) return undefined;
  // Names are looked up, never turned into paths: `/../../etc/passwd` names no command.
  const command = commands.get(call.name);
  if (!command) return undefined;
  return { prompt: substituteArguments(command.body, call.args), command };
}

/**
 * Claude Code's placeholders: `$ARGUMENTS` is everything after the name, `$1`…`$9` the words
 * (quotes group words, as a shell would). A body without `$ARGUMENTS` or any `$n` gets the
 * arguments appended, so `/review src` still says what to review. Replacement is one pass:
 * an argument holding `$1` stays as typed.
 */
export function substituteArguments(body: string, args: string, maxChars = MAX_EXPANSION_CHARS): string {
  const words = args.length > MAX_SPLIT_ARGS_CHARS ? [] : splitWords(args);
  let used = false;
  let added = 0;
  let cut = false;
  const out = body.replace(/\$ARGUMENTS\b|\$([1-9])(?![0-9])/g, (_all, digit: string | undefined) => {
    used = true;
    const value = digit === undefined ? args : (words[Number(digit) - 1] ?? '');
    if (body.length + added + value.length > maxChars) {
      cut = true;
      return '';
    }
    added += value.length;
    return value;
  });
  if (cut)
    return `${out}\n\n[The command's arguments were left out where they would have made the prompt longer than ${maxChars} characters.]`;
  if (used || !args) return out;
  return out ? `${out}\n\n${args}` : args;
}

/** Words as a shell splits them: spaces separate, single or double quotes group. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}
