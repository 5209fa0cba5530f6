/** Bash rules' commands: how a command line is matched against `Bash(…)` specifiers (rule-match.ts uses them). */
import path from 'node:path';
import { isReadOnlyCommand } from './shell-readonly.js';
import { wildcardMatcher } from './rule-glob.js';
import { splitCommands } from './shell-words.js';

/** A bash command an allow rule covers: the whole text as written, or every simple command in it. */
export function allowedCommand(
  rules: ReadonlyArray<{ text: string; specifier?: string }>,
  command: string | undefined,
): string | undefined {
  if (command === undefined) return undefined;
  const whole = rules.find((rule) => commandMatches(rule.specifier!, normalize(command), { exactOnly: true }));
  if (whole) return whole.text;
  // Only what the tokenizer fully understands: `touch x; rm -rf ~` or `touch $(…)` is never covered.
  const commands = splitCommands(command);
  if (!commands) return undefined;
  const used: string[] = [];
  for (const words of commands) {
    if (words.length === 0) return undefined;
    const text = words.map((w) => w.text).join(' ');
    const rule = rules.find((r) => commandMatches(r.specifier!, text));
    if (rule) used.push(rule.text);
    else if (!isReadOnlyCommand(text)) return undefined;
  }
  return used.length ? [...new Set(used)].join(', ') : undefined;
}

/**
 * Whether one simple command matches a Bash rule's specifier: `prefix:*` (or `prefix *`) is
 * the prefix alone or followed by a space; other `*` match any text; no `*` is the command
 * exactly.
 */
export function commandMatches(spec: string, command: string, options: { exactOnly?: boolean } = {}): boolean {
  const pattern = normalize(spec);
  const text = normalize(command);
  if (options.exactOnly) return pattern === text;
  const prefix = /^(.*?)(?::\*| \*)$/.exec(pattern);
  if (!prefix) return wildcardMatcher(pattern, { starOnly: true })(text);
  // `git diff:*`: `git diff` alone, or followed by a space and anything.
  const head = prefix[1]!;
  return wildcardMatcher(head, { starOnly: true })(text) || wildcardMatcher(`${head} *`, { starOnly: true })(text);
}

/** Spaces and tabs folded to one space, ends trimmed. */
export const normalize = (text: string): string => text.trim().replace(/[ \t]+/g, ' ');

/** Wrappers that run the command after them; a deny rule looks past them. */
const WRAPPERS = new Set([
  ...['sudo', 'doas', 'env', 'command', 'builtin', 'exec', 'eval', 'nohup', 'time', 'timeout', 'nice', 'ionice', 'xargs'],
  ...['sh', 'bash', 'dash', 'zsh', 'ksh'],
]);

/**
 * The commands in a command line, read roughly (for deny and ask: a rule must see `rm` in
 * `echo x; rm -rf y`, `$(rm …)`, `sudo rm`): split at every operator, substitution and
 * newline; wrappers and assignments in front dropped; quotes removed. Best effort by nature.
 */
export function roughCommands(command: string): string[] {
  const pieces = command.split(/&&|\|\||[;|&\n\r(){}`]|\$\(|<\(|>\(/);
  const out = new Set<string>([normalize(command)]);
  for (const piece of pieces) {
    const words = normalize(piece.replace(/["'\\]/g, ''))
      .split(' ')
      .filter(Boolean);
    // `sudo -u x rm`, `timeout 5 rm`, `bash -c "rm …"`, `FOO=1 rm`: what runs is the first other word.
    while (
      words.length &&
      (WRAPPERS.has(path.basename(words[0])) ||
        /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]) ||
        words[0].startsWith('-') ||
        /^\d+(\.\d+)?[smhd]?$/.test(words[0]))
    )
      words.shift();
    if (words.length) {
      out.add(words.join(' '));
      // `/usr/bin/rm` is `rm`.
      if (words[0].includes('/')) out.add([path.basename(words[0]), ...words.slice(1)].join(' '));
    }
  }
  return [...out];
}

/** The words of a command that could name files, roughly: every word, redirection targets included. */
export function commandPaths(command: string): string[] {
  return command
    .split(/[\s;&|<>()`"'=]+/)
    .map((word) => word.replace(/^\$\(/, ''))
    .filter((word) => word !== '' && !word.startsWith('-') && !word.startsWith('$'));
}
