import type { Key } from 'ink';
import type { CommandSummary } from '../core/index.js';
import { COMMANDS } from './slash-commands.js';

/** Every key the app answers to, as /help lists them. */
export const KEYS: readonly { keys: string; does: string }[] = [
  { keys: 'Enter', does: 'send the prompt (while a turn runs, it is queued and sent when the turn ends)' },
  {
    keys: 'Esc',
    does: 'interrupt the current turn (sub-agents keep running); twice on an empty input, /rewind; in a view, go back',
  },
  { keys: 'Ctrl+C', does: 'interrupt the turn; when idle, clear the input; on an empty input, press twice to quit' },
  { keys: 'Shift+Tab', does: 'next permission mode: default → accept-edits → plan → yolo' },
  {
    keys: 'Ctrl+K',
    does: 'stop every running sub-agent (press twice); with text after the cursor, delete to the end of the line',
  },
  { keys: 'Ctrl+B', does: 'move a running bash command to the background (it goes on as a shell job sh-N)' },
  { keys: 'Shift/Alt+Enter, \\ Enter', does: 'a new line in the input (a paste keeps its lines)' },
  { keys: '↑/↓', does: 'move between the lines of the input, then through earlier prompts (kept per project)' },
  { keys: '←/→, Alt+←/→, Ctrl+A/E', does: 'move by character, by word, to the start or end of the line' },
  { keys: 'Ctrl+U, Ctrl+W', does: 'delete to the start of the line, the word before the cursor' },
  { keys: 'Tab', does: 'complete the /command or @file shown above the input (↑/↓ choose, Esc closes)' },
  { keys: '↑/↓, Enter, x', does: 'in /agents: move, open a sub-agent, stop it' },
  {
    keys: 'Enter, x, m, d',
    does: 'in an opened sub-agent: Enter writes it a message (Enter sends, Esc cancels), x stops it, m merges its worktree, d twice discards it',
  },
  {
    keys: 'PgUp/PgDn, ↑/↓, g, End/G',
    does: "in a sub-agent's view: scroll its transcript by a screen or a line, to its top, back to the live end it follows",
  },
  { keys: 'y / a / n, Esc', does: 'when asked to approve: allow once, allow always, deny' },
];

/** The footer's key hints, longest first: in the chat, and while a view (/agents) has the keys. */
const HINTS = {
  main: [
    'Esc interrupt · Shift+Tab mode · Ctrl+K twice stop sub-agents · Ctrl+C twice quit · /help',
    'Esc interrupt · ⇧Tab mode · ^K×2 stop agents · ^C×2 quit · /help',
    'Esc · ⇧Tab mode · ^K×2 · ^C×2 quit · /help',
  ],
  view: [
    'Esc back · Shift+Tab mode · Ctrl+K twice stop sub-agents · Ctrl+C twice quit',
    'Esc back · ⇧Tab mode · ^K×2 stop agents · ^C×2 quit',
    'Esc back · ⇧Tab · ^K×2 · ^C×2 quit',
  ],
} as const;

/** The footer's key hint: the longest form that fits the width. In a view, Esc goes back rather than interrupting. */
export function footerHint(width: number, where: keyof typeof HINTS = 'main'): string {
  const hints = HINTS[where];
  return hints.find((hint) => Array.from(hint).length <= width) ?? hints[hints.length - 1]!;
}

/** The lines /help prints; custom commands (Markdown files) after the built-in ones. */
export function helpLines(custom: readonly CommandSummary[] = []): string[] {
  const keyWidth = Math.max(...KEYS.map((k) => k.keys.length));
  const commandWidth = Math.max(...COMMANDS.map((c) => c.usage.length));
  const usage = (c: CommandSummary) => `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}`;
  const customWidth = Math.max(0, ...custom.map((c) => usage(c).length));
  return [
    'Keys',
    ...KEYS.map((k) => `  ${k.keys.padEnd(keyWidth)}  ${k.does}`),
    'Commands',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(commandWidth)}  ${c.does}`),
    ...(custom.length ? ['Custom commands', ...custom.map((c) => `  ${usage(c).padEnd(customWidth)}  ${c.description}`)] : []),
  ];
}

/** Ctrl plus a letter (Ink reports the letter as input). */
export function isCtrl(input: string, key: Key, letter: string): boolean {
  return key.ctrl && input.toLowerCase() === letter;
}
