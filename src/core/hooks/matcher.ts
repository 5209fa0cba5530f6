import { oneLine } from '../platform/text.js';
import {
  DEFAULT_HOOK_TIMEOUT_S,
  HOOK_EVENTS,
  type HookEventName,
  type HookSettings,
  UNSUPPORTED_HOOK_EVENTS,
} from './hook-settings.js';

/** One command to run for an event. */
export interface HookCommand {
  command: string;
  timeoutMs: number;
  /** An Agent SDK hook callback's id: the SDK runs it (control request `hook_callback`), not a shell. */
  callback?: string;
}

interface CompiledGroup {
  /** Undefined: every subject. */
  matcher?: RegExp;
  commands: HookCommand[];
}

/** The hooks of a session, checked once: which commands run for an event and its subject. */
export interface HookTable {
  readonly events: ReadonlyMap<HookEventName, readonly CompiledGroup[]>;
}

/** Events whose matcher is tested against something; the others run every group. */
const MATCHED_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'SessionStart',
  'Notification',
  'SubagentStart',
  'SubagentStop',
]);

/**
 * Settings' `hooks` as a table, with one warning per thing that will not run: an event
 * outrider has no moment for, a hook type other than `command`, a matcher that is not a
 * regular expression. Nothing here throws: another agent's settings must not stop a start.
 */
export function compileHooks(
  settings: HookSettings | undefined,
  options: { callbacks?: boolean } = {},
): { table: HookTable; warnings: string[] } {
  const events = new Map<HookEventName, CompiledGroup[]>();
  const warnings: string[] = [];
  const notRun: string[] = [];
  for (const [event, groups] of Object.entries(settings ?? {})) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      const known = UNSUPPORTED_HOOK_EVENTS.includes(event);
      notRun.push(known ? event : `${event} (not a hook event; expected one of ${HOOK_EVENTS.join(', ')})`);
      continue;
    }
    const compiled: CompiledGroup[] = [];
    for (const group of groups) {
      const matcher = compileMatcher(group.matcher);
      if (matcher === 'invalid') {
        warnings.push(
          `hooks: ${event} matcher ${JSON.stringify(group.matcher)} is not a regular expression; its hooks do not run`,
        );
        continue;
      }
      const commands: HookCommand[] = [];
      for (const hook of group.hooks) {
        // The Agent SDK's hooks (its `initialize`): run by the SDK, when one drives the session.
        if (hook.type === 'callback' && options.callbacks && hook.command?.trim()) {
          const timeoutMs = Math.round((hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000);
          commands.push({ command: `SDK hook callback ${hook.command}`, callback: hook.command, timeoutMs });
          continue;
        }
        if (hook.type !== 'command' || !hook.command?.trim()) {
          warnings.push(
            `hooks: ${event} has a ${JSON.stringify(hook.type)} hook${hook.type === 'command' ? ' without a command' : ''}; outrider runs only "command" hooks`,
          );
          continue;
        }
        commands.push({ command: hook.command, timeoutMs: Math.round((hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000) });
      }
      if (commands.length) compiled.push({ ...(matcher ? { matcher } : {}), commands });
    }
    if (compiled.length) events.set(event as HookEventName, compiled);
  }
  if (notRun.length) warnings.push(`hooks for ${notRun.join(', ')} are not run by outrider`);
  return { table: { events }, warnings };
}

/** A matcher as Claude Code reads it: empty or `*` matches everything, else a regular expression over the whole name. */
function compileMatcher(matcher: string | undefined): RegExp | undefined | 'invalid' {
  if (matcher === undefined || matcher.trim() === '' || matcher.trim() === '*') return undefined;
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch {
    return 'invalid';
  }
}

/**
 * The commands to run for `event`, each once however many groups name it. `subjects` are the
 * names a matcher is tried against (a tool's outrider and Claude Code names; SessionStart's
 * source); a group matches when its matcher matches any of them.
 */
export function hooksFor(table: HookTable, event: HookEventName, subjects: readonly string[] = []): HookCommand[] {
  const groups = table.events.get(event) ?? [];
  const matched = groups.filter(
    (group) => !group.matcher || !MATCHED_EVENTS.has(event) || subjects.some((subject) => group.matcher!.test(subject)),
  );
  const seen = new Set<string>();
  const commands: HookCommand[] = [];
  for (const command of matched.flatMap((group) => group.commands)) {
    if (seen.has(command.command)) continue;
    seen.add(command.command);
    commands.push(command);
  }
  return commands;
}

/** True when any hook is set for `event` (callers skip building the input otherwise). */
export function hasHooks(table: HookTable, event: HookEventName): boolean {
  return (table.events.get(event)?.length ?? 0) > 0;
}

/** A command as events and warnings name it: one line, cut short. */
export function commandLabel(command: string): string {
  return oneLine(command, 80);
}
