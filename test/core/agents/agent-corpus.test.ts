import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, type AgentDefinition, loadDefinitions } from '../../../src/core/agents/definitions.js';

// A corpus of agent files written the ways they are found in the wild (Claude Code's docs
// example, the big category collections, contains-studio's one-line <example> descriptions,
// hand-written ones with CRLF, a BOM, tabs, block scalars, quoted and unquoted colons), loaded
// as a project's `.claude/agents` folder. Every file has its expected result below; a new
// fixture without one fails the test.

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/agents');

type Expected =
  | { loads: Partial<AgentDefinition>; warning?: string }
  /** Refused with exactly this warning. */
  | { refused: string }
  /** Not an agent file; skipped without a word. */
  | { skipped: true }
  /** Loaded, but another file of the same name wins (the warning is on the winner). */
  | { shadowed: true };

const CLAUDE_ALL = [...ALL_TOOLS];
const EVERY_COMMON = ['read_file', 'write_file', 'edit_file', 'bash', 'glob', 'grep'];

const EXPECTED: Record<string, Expected> = {
  'CONTRIBUTING.md': { skipped: true },
  'categories/02-language-specialists/README.md': { skipped: true },
  'notes.txt': { skipped: true },
  '.draft.md': { skipped: true },

  'code-reviewer.md': {
    loads: { tools: ['read_file', 'grep', 'glob', 'bash'], model: 'sonnet' },
    warning: 'name "code-reviewer" is also used by {categories/05-quality/code-reviewer.md}; using {code-reviewer.md}',
  },
  'categories/05-quality/code-reviewer.md': { shadowed: true },
  'categories/02-language-specialists/dotnet-framework-4.8-expert.md': {
    loads: { name: 'dotnet-framework-4.8-expert', tools: EVERY_COMMON, model: 'sonnet' },
  },
  'categories/02-language-specialists/typescript-pro.md': { loads: { tools: EVERY_COMMON, model: 'inherit' } },
  'categories/01-core-development/api-designer.md': { loads: { tools: EVERY_COMMON, model: 'opus' } },
  'categories/01-core-development/backend-developer.md': { loads: { tools: EVERY_COMMON, model: 'sonnet' } },
  'categories/09-meta/orchestration/workflow-orchestrator.md': {
    loads: { tools: ['read_file', 'write_file'] },
    warning: 'tools: dropped "Task": sub-agents cannot start sub-agents',
  },
  'test-runner.md': {
    loads: {
      description:
        'Use this agent when code changes need testing. Examples:\n\n<example>\nContext: The user has just implemented a feature.\n' +
        'user: "I\'ve added the login flow"\nassistant: "Let me run the tests with the test-runner agent."\n' +
        '<commentary>\nNew code needs its tests run.\n</commentary>\n</example>',
      tools: ['bash', 'read_file', 'edit_file', 'grep'],
      color: 'green',
    },
  },
  'security-auditor.md': {
    // Every tool as written (no tools line); plan mode leaves the child only the read-only ones.
    loads: { tools: CLAUDE_ALL, permissions: { mode: 'plan', ask: true, asWritten: 'plan' } },
  },
  'migration-planner.md': { loads: { maxTurns: 50, tools: ['read_file', 'grep', 'glob'] } },
  'orchestrator.md': {
    loads: { tools: ['mcp__github__*', 'read_file', 'grep'], model: 'opus' },
    warning: 'tools: dropped "Agent(worker, researcher)": sub-agents cannot start sub-agents',
  },
  'focused-worker.md': { loads: { tools: CLAUDE_ALL, disallowedTools: [] } },
  'memory-keeper.md': {
    loads: {
      tools: ['read_file', 'write_file', 'edit_file'],
      model: 'haiku',
      effort: 'high',
      skills: ['note-taking', 'summarizing'],
      memory: 'project',
      mcpServers: [{ name: 'github' }, { name: 'notes', entry: { type: 'stdio', command: 'npx', args: ['notes-mcp'] } }],
      hooks: {
        PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: './scripts/check-notes.sh' }] }],
      },
      color: 'purple',
    },
    warning: 'ignored initialPrompt: no meaning for an outrider sub-agent',
  },
  'windows-helper.md': {
    loads: {
      description: 'Helps with PowerShell scripts and Windows paths.',
      systemPrompt: 'You are a Windows and PowerShell expert.\nPrefer cross-platform paths.',
      tools: ['read_file', 'grep', 'glob', 'bash'],
    },
  },
  'docs-writer.md': {
    loads: { name: 'docs-writer', description: 'Writes and edits documentation — README files, guides, API docs.' },
  },
  'debugger.md': {
    loads: {
      description:
        'Debugging specialist for errors, test failures, and unexpected behavior.\nUse when:\n  - a test fails: "expected 3, got 4"\n  - a stack trace shows up',
    },
  },
  'data-scientist.md': {
    loads: {
      description:
        'Data analysis expert for SQL queries, BigQuery operations, and data insights. Use proactively for data analysis tasks and queries.',
      tools: ['bash', 'read_file', 'write_file'],
    },
  },
  'tabbed.md': { loads: { name: 'tabbed', tools: ['read_file', 'edit_file'] } },
  // Not YAML, but Claude Code loads them: examples at the margin, in quotes or not.
  'multiline-examples.md': {
    loads: {
      description:
        'Use this agent when a source file needs unit tests.\n\n<example>\nContext: The user has just written a new service class.\n' +
        'user: "I just created OrderService. Can you write unit tests for it?"\nassistant: "I\'ll use the unit-test-generator agent."\n</example>',
      tools: ['read_file', 'grep'],
      model: 'sonnet',
    },
  },
  'margin-examples.md': {
    loads: {
      description:
        'Use this agent when the user asks for a review. Examples:\n<example>\nContext: the user wrote code\n' +
        'user: "Please review my code"\nassistant: "I\'ll use the margin-reviewer agent"\n</example>',
      tools: ['read_file', 'grep'],
    },
  },
  'inner-quotes.md': {
    loads: { description: 'Use this agent when asked "explain this": it explains. user: "what is x?" assistant: "x is…"' },
  },
  'tab-indented.md': { refused: 'line 5: invalid YAML: Tabs are not allowed as indentation (indent with spaces, not tabs)' },
  'quoted-fields.md': {
    loads: {
      description: 'Explains code: what it does, why, and how it fits together.',
      tools: ['read_file', 'grep', 'glob'],
      model: 'inherit',
    },
  },
  'block-list.md': { loads: { tools: ['read_file', 'bash', 'grep'] } },
  'fast-fixer.md': { loads: { permissions: { mode: 'accept-edits', ask: true, asWritten: 'acceptEdits' } } },
  'yolo-runner.md': { loads: { permissions: { mode: 'yolo', ask: true, asWritten: 'bypassPermissions' } } },
  'quiet-checker.md': { loads: { permissions: { mode: 'default', ask: false, asWritten: 'dontAsk' } } },
  'bad-mode.md': {
    refused:
      'permissionMode: expected one of default, acceptEdits, dontAsk, bypassPermissions, plan (or accept-edits, yolo), got "readonly"',
  },
  'git-historian.md': {
    loads: { tools: ['read_file', 'grep'] },
    warning: 'tools: dropped "Bash(git log:*)", "Bash(git blame:*)": outrider cannot limit bash to a pattern',
  },
  'careful-shell.md': {
    loads: { tools: ['bash', 'read_file'], disallowedTools: ['bash'] },
    warning: 'disallowedTools: "Bash(rm:*)": outrider cannot deny part of a tool; bash removed whole',
  },
  'csharp-expert.md': {
    loads: { description: 'Expert in C# and F# on .NET 8', model: 'claude-opus-4-1-20250805', tools: CLAUDE_ALL },
  },
  'spaced-fences.md': { loads: { systemPrompt: 'You are tidy.' } },
  'no-front-matter.md': {
    refused: 'no front matter: the file must start with a line "---", then fields such as "name: …", then "---"',
  },
  'missing-description.md': { refused: 'missing "description" in the front matter' },
  'empty-body.md': { refused: 'missing the system prompt: write it after the closing "---"' },
};

function corpusFiles(): string[] {
  return readdirSync(FIXTURES, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(FIXTURES, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

const full = (relative: string) => path.join(FIXTURES, ...relative.split('/'));
/** `{relative}` in an expected warning is the fixture's full path. */
const expand = (text: string) => text.replace(/\{([^}]+)\}/g, (_, relative: string) => full(relative));

describe('the agent-file corpus', () => {
  const { definitions, warnings } = loadDefinitions({ claudeDirs: [FIXTURES], projectRoot: path.dirname(FIXTURES) });
  const byPath = new Map([...definitions.values()].filter((d) => d.path).map((d) => [d.path!, d]));

  it('has an expected result for every file, and keeps the bytes it was written with', () => {
    expect(corpusFiles()).toEqual(Object.keys(EXPECTED).sort());
    // The styles the corpus is there for: git and Prettier must not have normalized them.
    expect(readFileSync(full('windows-helper.md'), 'latin1')).toContain('\r\n');
    expect(readFileSync(full('docs-writer.md')).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(readFileSync(full('tabbed.md'), 'utf8')).toContain('name:\ttabbed');
    expect(readFileSync(full('test-runner.md'), 'utf8')).toContain('Examples:\\n\\n<example>');
  });

  it.each(Object.entries(EXPECTED))('%s', (relative, expected) => {
    const file = full(relative);
    const own = warnings.filter((w) => w.startsWith(`${file}: `)).map((w) => w.slice(file.length + 2));
    if ('loads' in expected) {
      expect(byPath.get(file)).toMatchObject({ source: 'claude', path: file, ...expected.loads });
      expect(own).toEqual(expected.warning ? [expand(expected.warning)] : []);
    } else if ('refused' in expected) {
      expect(byPath.has(file)).toBe(false);
      expect(own).toEqual([expected.refused]);
    } else {
      expect(byPath.has(file)).toBe(false);
      expect(own).toEqual([]);
    }
  });

  it('loads 29 agents beside the built-ins, with at most one warning line per file (aliases resolve when a job starts)', () => {
    expect(definitions.size).toBe(2 + 29);
    const perFile = Object.keys(EXPECTED).filter((relative) => warnings.some((w) => w.startsWith(`${full(relative)}: `)));
    expect(warnings).toHaveLength(perFile.length);
  });
});
