import * as z from 'zod';

// `statusLine` and `subagentStatusLine`, in Claude Code's shape, so a block copied from
// `~/.claude/settings.json` works unchanged:
//   { "type": "command", "command": "~/.claude/statusline.sh", "padding": 0 }

/** Spaces before the line at most. */
export const MAX_STATUS_PADDING = 40;
/** A status command's text at most, as `agents.mergeCheck`'s. */
const MAX_COMMAND_LENGTH = 4096;

const COMMAND = 'a shell command such as "~/.claude/statusline.sh"';
const PADDING = `a number of spaces before the line, from 0 to ${MAX_STATUS_PADDING}`;

const statusLineShape = {
  type: z.literal('command', { error: '"command" (the one kind of status line)' }),
  command: z
    .string({ error: COMMAND })
    .refine((text) => text.trim() !== '', { error: COMMAND })
    .refine((text) => text.length <= MAX_COMMAND_LENGTH, {
      error: `a shell command of at most ${MAX_COMMAND_LENGTH} characters`,
    }),
  padding: z
    .number({ error: PADDING })
    .int({ error: PADDING })
    .min(0, { error: PADDING })
    .max(MAX_STATUS_PADDING, { error: PADDING })
    .optional(),
};

/** The keys a status line setting takes (for "did you mean" in settings errors). */
export const STATUS_LINE_KEYS: readonly string[] = Object.keys(statusLineShape);

/** One status line: a command that reads the session's (or a sub-agent's) JSON on stdin and prints one line. */
export const statusLineSchema = z
  .object(statusLineShape, { error: 'an object such as { "type": "command", "command": "~/.claude/statusline.sh" }' })
  .strict();

export type StatusLineSetting = z.infer<typeof statusLineSchema>;
