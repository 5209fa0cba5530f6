import * as z from 'zod';
import { HOOK_EVENTS, type HookEventName } from '../loop/events.js';
import { canonicalJson } from '../platform/canonical-json.js';

export { HOOK_EVENTS, type HookEventName };

// The `hooks` settings key, in Claude Code's format, so a `hooks` block copied from
// `.claude/settings.json` works unchanged:
//   { "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "…", "timeout": 60 }] }] }

/** Claude Code events outrider has no moment for: their hooks are accepted and named in one warning, not run. */
export const UNSUPPORTED_HOOK_EVENTS: readonly string[] = ['PermissionRequest', 'PostToolUseFailure'];

/** Longest a hook may be given to run, in seconds (Claude Code's unit). */
export const MAX_HOOK_TIMEOUT_S = 600;
/** A hook without `timeout` may run this long. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

const hookCommandSchema = z.object(
  {
    // Claude Code also has `prompt` and `agent` hooks (a model judges); they are named in a warning and skipped.
    type: z.string({ error: 'a hook type such as "command"' }),
    command: z.string({ error: 'the command to run (a string)' }).optional(),
    timeout: z
      .number({ error: `a timeout in seconds, from 1 to ${MAX_HOOK_TIMEOUT_S}` })
      .positive({ error: `a timeout in seconds, from 1 to ${MAX_HOOK_TIMEOUT_S}` })
      .max(MAX_HOOK_TIMEOUT_S, { error: `a timeout in seconds, from 1 to ${MAX_HOOK_TIMEOUT_S}` })
      .optional(),
  },
  { error: 'a hook such as { "type": "command", "command": "./check.sh" }' },
);

const hookGroupSchema = z.object(
  {
    /** A regular expression over tool names (PreToolUse, PostToolUse) or the event's subject; empty or "*": all. */
    matcher: z.string({ error: 'a regular expression such as "Bash|Write" (a string)' }).optional(),
    hooks: z.array(hookCommandSchema, { error: 'a list of hooks such as [{ "type": "command", "command": "…" }]' }),
  },
  { error: 'an object such as { "matcher": "Bash", "hooks": [ … ] }' },
);

/** `hooks`: event name → groups. Event names are checked when hooks are loaded (a warning, not an error). */
export const hooksSchema = z.record(z.string(), z.array(hookGroupSchema, { error: 'a list of { matcher, hooks } groups' }), {
  error: 'an object mapping events ("PreToolUse", "Stop", …) to lists of { matcher, hooks }',
});

export type HookSettings = z.infer<typeof hooksSchema>;
export type HookGroup = HookSettings[string][number];

/**
 * Several layers' hooks together: every layer's groups run (Claude Code's rule), the user's
 * first. An identical group in two layers is kept once.
 */
export function concatHooks(layers: Array<HookSettings | undefined>): HookSettings {
  const out: HookSettings = {};
  for (const layer of layers) {
    for (const [event, groups] of Object.entries(layer ?? {})) {
      const list = (out[event] ??= []);
      for (const group of groups) {
        const key = canonicalJson(group);
        if (!list.some((g) => canonicalJson(g) === key)) list.push(structuredClone(group));
      }
    }
  }
  return out;
}

/** True when every group of `project` is in `user` already (same event, same text): nothing new would run. */
export function hooksWithin(project: HookSettings, user: HookSettings | undefined): boolean {
  return Object.entries(project).every(([event, groups]) =>
    groups.every((group) => (user?.[event] ?? []).some((own) => canonicalJson(own) === canonicalJson(group))),
  );
}
