import type { Key } from 'ink';
import type { CommandSummary } from '../core/commands/command-files.js';
import { COMMANDS } from './slash-commands.js';

/** Every key the app answers to, as /help lists them. */
export const KEYS: readonly { keys: string; does: string }[] = [
  { keys: 'Enter', does: 'send the prompt (while a turn runs, it is queued and sent when the turn ends)' },
  { keys: 'Esc', does: 'interrupt the current turn (sub-agents keep running); in a view, go back' },
  { keys: 'Ctrl+K', does: 'stop every running sub-agent (press twice to confirm)' },
  { keys: 'Ctrl+C', does: 'quit, stopping every sub-agent (press twice)' },
  { keys: '←/→, Ctrl+A/Ctrl+E', does: 'move in the input line; Backspace deletes' },
  { keys: '↑/↓, Enter, x', does: 'in /agents: move, open a sub-agent, stop it' },
  { keys: 'y / a / n, Esc', does: 'when asked to approve: allow once, allow always, deny' },
];

/** The footer's key hint, shortened for narrow terminals. */
export function footerHint(width: number): string {
  if (width < 80) return 'Esc interrupt · ^K stop agents · ^C×2 quit · /help';
  return 'Enter send · Esc interrupt · Ctrl+K stop sub-agents · Ctrl+C twice quit · /help keys and commands';
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
