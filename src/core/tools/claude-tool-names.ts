// Claude Code's names for tools, shared by what reads Claude Code's files (agent definitions,
// hooks' matchers and input): a table of names, below both.

/** Claude Code tool names that have an outrider equivalent. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Bash: 'bash',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'list_dir',
  NotebookRead: 'read_file',
});
