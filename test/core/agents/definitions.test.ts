import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { ALL_TOOLS, DEFAULT_READ_ONLY_TOOLS, loadDefinitions, parseDefinition } from '../../../src/core/agents/definitions.js';
import { AGENT_COLORS } from '../../../src/core/agents/agent-definition.js';
import {
  MAX_AGENT_FILES,
  MAX_AGENT_FILE_BYTES,
  MAX_AGENT_FOLDER_BYTES,
  MAX_AGENT_FOLDER_DEPTH,
} from '../../../src/core/agents/definition-files.js';

let root: string;
let dirs: { user: string; project: string; claudeUser: string; claudeProject: string };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'outrider-defs-'));
  dirs = {
    user: join(root, 'home/.outrider/agents'),
    project: join(root, 'proj/.outrider/agents'),
    claudeUser: join(root, 'home/.claude/agents'),
    claudeProject: join(root, 'proj/.claude/agents'),
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(dir: string, file: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, file);
  writeFileSync(path, text);
  return path;
}

function agentFile(name: string, extra = '', body = `You are ${name}.`): string {
  return `---\nname: ${name}\ndescription: The ${name} agent.\n${extra}---\n${body}\n`;
}

function load() {
  return loadDefinitions({
    userDir: dirs.user,
    projectDir: dirs.project,
    claudeDirs: [dirs.claudeUser, dirs.claudeProject],
  });
}

describe('built-in definitions', () => {
  it('has explore (read-only, the default tools) and general (may edit and run commands)', () => {
    const { definitions, warnings } = loadDefinitions({});
    expect(warnings).toEqual([]);
    expect([...definitions.keys()]).toEqual(['explore', 'general']);
    const explore = definitions.get('explore')!;
    expect(explore).toMatchObject({ source: 'builtin', model: 'inherit', disallowedTools: [], tools: undefined });
    expect(explore.path).toBeUndefined();
    expect(DEFAULT_READ_ONLY_TOOLS).toEqual(['read_file', 'grep', 'glob', 'list_dir']);
    expect(explore.systemPrompt).toMatch(/read-only/);
    expect(explore.systemPrompt).toMatch(/path:line/);
    const general = definitions.get('general')!;
    expect(general.tools).toEqual(['read_file', 'write_file', 'edit_file', 'bash', 'grep', 'glob', 'list_dir']);
    expect(general.systemPrompt).toMatch(/permission mode/);
    for (const definition of definitions.values()) {
      expect(definition.systemPrompt.length).toBeLessThanOrEqual(1200);
      expect(definition.description.length).toBeGreaterThan(0);
    }
  });

  it('gives each load its own objects, so one session cannot change another', () => {
    const first = loadDefinitions({}).definitions.get('general')!;
    first.tools!.push('agent_start');
    expect(loadDefinitions({}).definitions.get('general')!.tools).not.toContain('agent_start');
  });
});

describe('loadDefinitions precedence', () => {
  it('project beats user beats .claude beats built-in for the same name', () => {
    const claudePath = write(dirs.claudeUser, 'explore.md', agentFile('explore', '', 'claude prompt'));
    let result = load();
    expect(result.definitions.get('explore')).toMatchObject({
      source: 'claude',
      systemPrompt: 'claude prompt',
      path: claudePath,
    });

    const userPath = write(dirs.user, 'explore.md', agentFile('explore', '', 'user prompt'));
    result = load();
    expect(result.definitions.get('explore')).toMatchObject({ source: 'user', systemPrompt: 'user prompt', path: userPath });

    const projectPath = write(dirs.project, 'mine.md', agentFile('explore', 'max_turns: 3\n', 'project prompt'));
    result = load();
    expect(result.definitions.get('explore')).toMatchObject({
      source: 'project',
      systemPrompt: 'project prompt',
      path: projectPath,
      maxTurns: 3,
      tools: undefined,
    });
    expect(result.warnings).toEqual([]);
    // general was never overridden.
    expect(result.definitions.get('general')!.source).toBe('builtin');
  });

  it('a later .claude folder beats an earlier one', () => {
    write(dirs.claudeUser, 'reviewer.md', agentFile('reviewer', '', 'from home'));
    write(dirs.claudeProject, 'reviewer.md', agentFile('reviewer', '', 'from project'));
    expect(load().definitions.get('reviewer')!.systemPrompt).toBe('from project');
  });

  it('missing folders are fine and give no warning', () => {
    expect(load()).toMatchObject({ warnings: [] });
    expect(load().definitions.size).toBe(2);
  });

  it('a path that is a file, not a folder, is reported', () => {
    write(join(root, 'home/.outrider'), 'agents', 'oops');
    expect(load().warnings).toEqual([`${dirs.user}: not a folder; agent definitions go in a folder of .md files`]);
  });

  it('reads only .md files, in file-name order; a duplicate name in one folder is reported and the later file wins', () => {
    write(dirs.project, 'notes.txt', 'not a definition');
    write(dirs.project, '.hidden.md', 'not a definition either');
    const b = write(dirs.project, 'b.md', agentFile('same', '', 'from b'));
    const a = write(dirs.project, 'a.md', agentFile('same', '', 'from a'));
    const result = load();
    expect(result.definitions.get('same')!.systemPrompt).toBe('from b');
    expect(result.warnings).toEqual([`${b}: name "same" is also used by ${a}; using ${b}`]);
    expect([...result.definitions.keys()]).toEqual(['explore', 'general', 'same']);
  });
});

describe('Claude Code agent files', () => {
  const claudeReviewer = `---
name: code-reviewer
description: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash, WebFetch
model: sonnet
color: blue
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
2. Focus on modified files
3. Begin review immediately
`;

  it('maps Read, Grep, Glob, Bash to our tools; one line names the dropped WebFetch; sonnet and the colour are kept', () => {
    const path = write(dirs.claudeProject, 'code-reviewer.md', claudeReviewer);
    const { definitions, warnings } = load();
    expect(definitions.get('code-reviewer')).toEqual({
      name: 'code-reviewer',
      description:
        'Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.',
      systemPrompt:
        'You are a senior code reviewer ensuring high standards of code quality and security.\n\nWhen invoked:\n1. Run git diff to see recent changes\n2. Focus on modified files\n3. Begin review immediately',
      tools: ['read_file', 'grep', 'glob', 'bash'],
      disallowedTools: [],
      model: 'sonnet',
      color: 'blue',
      source: 'claude',
      path,
    });
    expect(warnings).toEqual([`${path}: tools: dropped "WebFetch": no outrider equivalent`]);
  });

  it('maps every known Claude tool name, merging duplicates, and names every dropped one', () => {
    const path = write(
      dirs.claudeUser,
      'all.md',
      agentFile('all', 'tools: Read, Write, Edit, MultiEdit, Bash, Grep, Glob, LS, NotebookRead, Task, WebSearch\n'),
    );
    const { definitions, warnings } = load();
    expect(definitions.get('all')!.tools).toEqual(['read_file', 'write_file', 'edit_file', 'bash', 'grep', 'glob', 'list_dir']);
    expect(warnings).toEqual([
      `${path}: tools: dropped "Task": sub-agents cannot start sub-agents; "WebSearch": no outrider equivalent`,
    ]);
  });

  it('reads the lenient descriptions Claude Code accepts (colons, quotes, <example> tags) and keeps MCP tools', () => {
    const path = write(
      dirs.claudeProject,
      'test-runner.md',
      `---
name: test-runner
description: Use this agent when code changes need testing. Examples:\\n\\n<example>\\nContext: The user wrote code.\\nuser: "Run the tests"\\nassistant: "I'll use the test-runner agent"\\n</example>
tools: Bash, Read, Edit, mcp__github__get_issue, mcp__db__*, WebSearch
---
You run tests.`,
    );
    const { definitions, warnings } = load();
    expect(definitions.get('test-runner')).toMatchObject({
      // Claude Code turns the literal \n into line breaks.
      description:
        'Use this agent when code changes need testing. Examples:\n\n<example>\nContext: The user wrote code.\nuser: "Run the tests"\nassistant: "I\'ll use the test-runner agent"\n</example>',
      // MCP servers start after definitions load: their names and patterns are kept as written.
      tools: ['bash', 'read_file', 'edit_file', 'mcp__github__get_issue', 'mcp__db__*'],
    });
    expect(warnings).toEqual([`${path}: tools: dropped "WebSearch": no outrider equivalent`]);
  });

  it('a Claude file without tools: gets every tool, as in Claude Code', () => {
    write(dirs.claudeUser, 'helper.md', agentFile('helper', 'model: inherit\n'));
    const { definitions, warnings } = load();
    expect(definitions.get('helper')).toMatchObject({ tools: [...ALL_TOOLS], model: 'inherit' });
    expect(warnings).toEqual([]);
  });

  it('keeps a concrete model id and maps disallowedTools', () => {
    write(dirs.claudeUser, 'x.md', agentFile('x', 'model: claude-opus-4-1\ndisallowedTools: Bash, Write\n'));
    expect(load().definitions.get('x')).toMatchObject({ model: 'claude-opus-4-1', disallowedTools: ['bash', 'write_file'] });
  });
});

describe('our own definition files', () => {
  it('reads every field: lists, aliases, limits in seconds', () => {
    const path = write(
      dirs.project,
      'auditor.md',
      `---
# A security auditor.
name: auditor
description: "Audits: finds risky code"
tools:
  - read_file
  - grep
  - bash
disallowedTools: [bash]
model: gpt-5-mini
max_turns: 20
max_total_tokens: 200000
max_duration_s: 90
---
Audit carefully.
`,
    );
    const { definitions, warnings } = load();
    expect(warnings).toEqual([]);
    expect(definitions.get('auditor')).toEqual({
      name: 'auditor',
      description: 'Audits: finds risky code',
      systemPrompt: 'Audit carefully.',
      tools: ['read_file', 'grep', 'bash'],
      disallowedTools: ['bash'],
      model: 'gpt-5-mini',
      maxTurns: 20,
      maxTotalTokens: 200000,
      maxDurationMs: 90_000,
      source: 'project',
      path,
    });
  });

  it('reads the caps: maxCostUsd, maxToolCalls and timeout (seconds), in either spelling; a cap given twice is refused', () => {
    const camel = parseDefinition(agentFile('a', 'maxCostUsd: 0.25\nmaxToolCalls: 40\ntimeout: 120\n'), {
      path: '/p/a.md',
      source: 'user',
    });
    expect(camel).toMatchObject({ definition: { maxCostUsd: 0.25, maxToolCalls: 40, maxDurationMs: 120_000 }, warnings: [] });
    const snake = parseDefinition(agentFile('b', 'max_cost_usd: "$1.5"\nmax_tool_calls: "7"\n'), {
      path: '/p/b.md',
      source: 'user',
    });
    expect(snake.definition).toMatchObject({ maxCostUsd: 1.5, maxToolCalls: 7 });
    expect(parseDefinition(agentFile('c', 'maxCostUsd: 0\n'), { path: '/p/c.md', source: 'user' }).warnings).toEqual([
      '/p/c.md: maxCostUsd: expected a positive number of dollars, such as 0.5, got 0',
    ]);
    expect(
      parseDefinition(agentFile('d', 'timeout: 60\nmax_duration_s: 90\n'), { path: '/p/d.md', source: 'user' }).warnings,
    ).toEqual(['/p/d.md: max_duration_s: given twice, also as "timeout"; keep one']);
  });

  it('uses our tool names directly and drops unknown ones (and agent_* tools) with a warning', () => {
    const path = write(dirs.user, 'x.md', agentFile('x', 'tools: [read_file, Read, agent_start, read_result]\n'));
    const { definitions, warnings } = load();
    expect(definitions.get('x')!.tools).toEqual(['read_file', 'read_result']);
    expect(warnings).toEqual([
      `${path}: tools: dropped unknown tool "Read" (known tools: read_file, write_file, edit_file, bash, grep, glob, list_dir, read_result); "agent_start": sub-agents cannot start sub-agents`,
    ]);
  });

  it('accepts a comma string of our names, an explicit empty list, and a caller-given set of known tools', () => {
    write(dirs.user, 'a.md', agentFile('a', 'tools: read_file, mcp_search\n'));
    write(dirs.user, 'b.md', agentFile('b', 'tools: []\n'));
    const { definitions, warnings } = loadDefinitions({ userDir: dirs.user, knownTools: ['read_file', 'mcp_search'] });
    expect(definitions.get('a')!.tools).toEqual(['read_file', 'mcp_search']);
    expect(definitions.get('b')!.tools).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('keeps a Claude model tier as written in our files too (resolved against the provider when a job starts), and defaults to inherit', () => {
    write(dirs.user, 'a.md', agentFile('a', 'model: haiku\n'));
    write(dirs.user, 'b.md', agentFile('b'));
    const { definitions, warnings } = load();
    expect(definitions.get('a')!.model).toBe('haiku');
    expect(definitions.get('b')!.model).toBe('inherit');
    expect(warnings).toEqual([]);
  });
});

describe('malformed files', () => {
  const cases: Array<[string, string, string]> = [
    [
      'no front matter',
      '# Reviewer\n\nYou review code.\n',
      'no front matter: the file must start with a line "---", then fields such as "name: …", then "---"',
    ],
    [
      'unclosed front matter',
      '---\nname: x\ndescription: y\n',
      'front matter opened on line 1 is never closed: add a line "---" after the fields',
    ],
    [
      // A line after a field continues it (as an example's do in a description Claude Code loads); before any, it is an error.
      'bad YAML line',
      '---\njust words\nname: x\ndescription: y\n---\nPrompt.\n',
      'line 2: invalid YAML: Implicit keys need to be on a single line (put a value that holds ": " in quotes)',
    ],
    ['missing name', '---\ndescription: y\n---\nPrompt.\n', 'missing "name" in the front matter'],
    ['missing description', '---\nname: x\n---\nPrompt.\n', 'missing "description" in the front matter'],
    ['empty description', '---\nname: x\ndescription: ""\n---\nPrompt.\n', 'missing "description" in the front matter'],
    [
      'bad name',
      '---\nname: Code Reviewer\ndescription: y\n---\nPrompt.\n',
      'name: expected lowercase letters, digits, "-", "_" or "." (e.g. "code-reviewer"), got "Code Reviewer"',
    ],
    ['list description', '---\nname: x\ndescription: [a, b]\n---\nPrompt.\n', 'description: expected text, got a list ["a","b"]'],
    [
      'word limit',
      '---\nname: x\ndescription: y\nmax_turns: ten\n---\nPrompt.\n',
      'max_turns: expected a positive whole number, got "ten"',
    ],
    [
      'fractional limit',
      '---\nname: x\ndescription: y\nmax_total_tokens: 1.5\n---\nPrompt.\n',
      'max_total_tokens: expected a positive whole number, got 1.5',
    ],
    [
      'zero limit',
      '---\nname: x\ndescription: y\nmax_duration_s: 0\n---\nPrompt.\n',
      'max_duration_s: expected a positive whole number, got 0',
    ],
    [
      'negative limit',
      '---\nname: x\ndescription: y\nmax_turns: -2\n---\nPrompt.\n',
      'max_turns: expected a positive whole number, got -2',
    ],
    [
      'tools not a list',
      '---\nname: x\ndescription: y\ntools: true\n---\nPrompt.\n',
      'tools: expected a list of tool names such as [read_file, grep], got true',
    ],
    [
      'unclosed tools list',
      '---\nname: x\ndescription: y\ntools: [read_file, grep\n---\nPrompt.\n',
      'line 4: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
    [
      'model a list',
      '---\nname: x\ndescription: y\nmodel: [a]\n---\nPrompt.\n',
      'model: expected a model id or "inherit", got a list ["a"]',
    ],
    [
      'both disallowed spellings',
      '---\nname: x\ndescription: y\ndisallowed_tools: [bash]\ndisallowedTools: [bash]\n---\nPrompt.\n',
      'disallowed_tools: given twice, also as "disallowedTools"; keep one',
    ],
    ['duplicate key', '---\nname: x\ndescription: y\nname: z\n---\nPrompt.\n', 'line 4: "name" is given twice; keep one'],
    ['no system prompt', '---\nname: x\ndescription: y\n---\n\n', 'missing the system prompt: write it after the closing "---"'],
  ];

  it.each(cases)('%s: one warning naming the file and field, and the other files still load', (_label, text, message) => {
    const bad = write(dirs.project, 'bad.md', text);
    write(dirs.project, 'good.md', agentFile('good'));
    write(dirs.user, 'other.md', agentFile('other'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([`${bad}: ${message}`]);
    expect([...definitions.keys()].sort()).toEqual(['explore', 'general', 'good', 'other']);
  });

  it('reports several malformed files, one warning each, in file order, and loads the rest', () => {
    const a = write(dirs.project, 'a.md', '---\nname: a\n---\nPrompt.\n');
    const b = write(dirs.project, 'b.md', '---\nname: b\ndescription: y\nmax_turns: ten\nmax_total_tokens: lots\n---\nPrompt.\n');
    write(dirs.project, 'c.md', agentFile('c'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([
      `${a}: missing "description" in the front matter`,
      `${b}: max_turns: expected a positive whole number, got "ten"`,
    ]);
    expect(definitions.has('c')).toBe(true);
    expect(definitions.has('a') || definitions.has('b')).toBe(false);
  });

  it('a malformed file does not remove a lower-precedence definition of the same name', () => {
    write(dirs.user, 'explore.md', '---\nname: explore\n---\nPrompt.\n');
    const { definitions, warnings } = load();
    expect(definitions.get('explore')!.source).toBe('builtin');
    expect(warnings).toHaveLength(1);
  });

  it('a link that leads nowhere is reported and the others load', () => {
    const path = join(dirs.project, 'gone.md');
    mkdirSync(dirs.project, { recursive: true });
    symlinkSync(join(root, 'nowhere.md'), path);
    write(dirs.project, 'open.md', agentFile('open'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([`${path}: a link that leads nowhere; skipped`]);
    expect(definitions.has('open')).toBe(true);
  });

  it('names the Claude Code fields it cannot honour, once, and ignores other keys whatever they hold', () => {
    const path = write(
      dirs.claudeUser,
      'x.md',
      agentFile(
        'x',
        'hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command}]\ninitialPrompt: go\ntags: [a, b]\nversion: 2\n',
      ),
    );
    const { definitions, warnings } = load();
    expect(warnings).toEqual([`${path}: ignored initialPrompt: no meaning for an outrider sub-agent`]);
    expect(definitions.get('x')?.hooks).toEqual({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }] });
  });

  it('refuses a file with a YAML syntax error anywhere, also under a key it does not read, naming the line', () => {
    // YAML cannot tell where an unclosed string ends, so no field of the block can be trusted.
    const path = write(dirs.claudeUser, 'x.md', agentFile('x', 'color: "unterminated\n'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([
      `${path}: line 4: invalid YAML: Missing closing "quote (close the string with the quote it opens with)`,
    ]);
    expect(definitions.has('x')).toBe(false);
  });

  it('reports a field of the wrong kind with what was found', () => {
    const cases: Array<[string, string]> = [
      ['max_turns: [3]', 'max_turns: expected a positive whole number, got a list [3]'],
      ['max_duration_s: 1e300', 'max_duration_s: expected a positive whole number, got 1e+300'],
      [
        'tools: {read_file: true}',
        'tools: expected a list of tool names such as [read_file, grep], got an object {"read_file":true}',
      ],
      [
        'tools: [read_file, [grep]]',
        'tools: expected a list of tool names such as [read_file, grep], got a list ["read_file",["grep"]]',
      ],
      ['model: true', 'model: expected a model id or "inherit", got true'],
    ];
    for (const [field, message] of cases) {
      const result = parseDefinition(agentFile('x', `${field}\n`), { path: '/p/x.md', source: 'user' });
      expect(result).toEqual({ definition: undefined, warnings: [`/p/x.md: ${message}`] });
    }
  });
});

describe('parseDefinition', () => {
  it('reads full YAML: block scalars, quoted names, block lists with comments, numbers as text', () => {
    const text = `---
name: "007"
description: >
  Reviews code.
  Use it after edits: it reads diffs.
tools:
  - read_file   # always
  - grep
model: 'gpt-5'
max_turns: 3
---
Prompt.
`;
    expect(parseDefinition(text, { path: '/p/a.md', source: 'project' }).definition).toMatchObject({
      name: '007',
      description: 'Reviews code. Use it after edits: it reads diffs.',
      tools: ['read_file', 'grep'],
      model: 'gpt-5',
      maxTurns: 3,
    });
    // A bare 007 is the number 7 in YAML; the name is its text.
    expect(
      parseDefinition(agentFile('x').replace('name: x', 'name: 7'), { path: '/p/b.md', source: 'user' }).definition?.name,
    ).toBe('7');
  });

  it('gives a "__proto__" key no power over the fields', () => {
    const text = '---\n__proto__: {name: evil, description: smuggled}\n---\nPrompt.\n';
    expect(parseDefinition(text, { path: '/p/x.md', source: 'user' })).toEqual({
      definition: undefined,
      warnings: ['/p/x.md: missing "name" in the front matter'],
    });
  });

  it('parses a file given as text', () => {
    const result = parseDefinition(agentFile('solo', 'max_turns: "5"\n'), { path: '/p/solo.md', source: 'user' });
    expect(result).toEqual({
      definition: {
        name: 'solo',
        description: 'The solo agent.',
        systemPrompt: 'You are solo.',
        tools: undefined,
        disallowedTools: [],
        model: 'inherit',
        maxTurns: 5,
        source: 'user',
        path: '/p/solo.md',
      },
      warnings: [],
    });
  });
});

describe('folders of agents', () => {
  it('reads sub-folders (a collection sorted into categories/), in path order', () => {
    const a = write(join(dirs.claudeProject, 'categories/01-core'), 'api-designer.md', agentFile('api-designer'));
    const b = write(join(dirs.claudeProject, 'categories/02-lang'), 'typescript-pro.md', agentFile('typescript-pro'));
    write(join(dirs.project, 'team/review'), 'reviewer.md', agentFile('reviewer'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([]);
    expect(definitions.get('api-designer')!.path).toBe(a);
    expect(definitions.get('typescript-pro')!.path).toBe(b);
    expect(definitions.get('reviewer')!.source).toBe('project');
  });

  it('reports a name used twice across sub-folders, naming both files', () => {
    const nested = write(
      join(dirs.claudeProject, 'categories/quality'),
      'code-reviewer.md',
      agentFile('code-reviewer', '', 'nested'),
    );
    const top = write(dirs.claudeProject, 'code-reviewer.md', agentFile('code-reviewer', '', 'top'));
    const { definitions, warnings } = load();
    // "categories" sorts before "code-reviewer.md": the top-level file comes later and wins.
    expect(definitions.get('code-reviewer')!.systemPrompt).toBe('top');
    expect(warnings).toEqual([`${top}: name "code-reviewer" is also used by ${nested}; using ${top}`]);
  });

  it(`reads ${MAX_AGENT_FOLDER_DEPTH} levels of sub-folders and says what lies deeper`, () => {
    const levels = Array.from({ length: MAX_AGENT_FOLDER_DEPTH }, (_, i) => `l${i + 1}`);
    write(join(dirs.claudeProject, ...levels), 'deepest.md', agentFile('deepest'));
    const tooDeep = join(dirs.claudeProject, ...levels, 'l6');
    write(tooDeep, 'lost.md', agentFile('lost'));
    const { definitions, warnings } = load();
    expect(definitions.has('deepest')).toBe(true);
    expect(definitions.has('lost')).toBe(false);
    expect(warnings).toEqual([`${tooDeep}: not read: agent folders are read at most ${MAX_AGENT_FOLDER_DEPTH} levels deep`]);
  });

  it('does not follow links out of the folder; links inside it are fine, and a loop is walked once', () => {
    const secret = write(join(root, 'elsewhere'), 'secret.md', agentFile('secret', '', 'SECRET NOTES'));
    write(join(root, 'elsewhere/more'), 'other.md', agentFile('other-secret'));
    mkdirSync(dirs.claudeProject, { recursive: true });
    symlinkSync(secret, join(dirs.claudeProject, 'linked.md'));
    symlinkSync(join(root, 'elsewhere/more'), join(dirs.claudeProject, 'linked-folder'));
    const inside = write(join(dirs.claudeProject, 'real'), 'inner.md', agentFile('inner'));
    symlinkSync(inside, join(dirs.claudeProject, 'alias.md'));
    symlinkSync(dirs.claudeProject, join(dirs.claudeProject, 'real', 'loop'));
    const { definitions, warnings } = load();
    expect([...definitions.values()].some((d) => d.systemPrompt.includes('SECRET'))).toBe(false);
    expect(definitions.has('other-secret')).toBe(false);
    expect(definitions.get('inner')).toBeDefined();
    const alias = join(dirs.claudeProject, 'alias.md');
    expect(warnings).toEqual([
      `${join(dirs.claudeProject, 'linked-folder')}: links outside ${dirs.claudeProject} (to ${join(root, 'elsewhere/more')}); not read`,
      `${join(dirs.claudeProject, 'linked.md')}: links outside ${dirs.claudeProject} (to ${secret}); not read`,
      // The link inside the folder is read like a file: the same definition twice, reported once.
      `${inside}: name "inner" is also used by ${alias}; using ${inside}`,
    ]);
  });

  it("refuses a project's agents folder that is a link out of the project; the user's own may be a link", () => {
    write(join(root, 'dotfiles/agents'), 'mine.md', agentFile('mine'));
    mkdirSync(join(root, 'proj/.claude'), { recursive: true });
    symlinkSync(join(root, 'dotfiles/agents'), dirs.claudeProject);
    mkdirSync(join(root, 'home/.outrider'), { recursive: true });
    symlinkSync(join(root, 'dotfiles/agents'), dirs.user);
    const result = loadDefinitions({ userDir: dirs.user, claudeDirs: [dirs.claudeProject], projectRoot: join(root, 'proj') });
    expect(result.warnings).toEqual([
      `${dirs.claudeProject}: a link to ${join(root, 'dotfiles/agents')}, outside the project; its agents are not read`,
    ]);
    expect(result.definitions.get('mine')!.source).toBe('user');
  });

  it("marks the repository's definitions, so their limits may only lower the session's (child-run.ts)", () => {
    write(dirs.project, 'a.md', agentFile('from-outrider-dir', 'max_turns: 100000\n'));
    write(dirs.claudeProject, 'b.md', agentFile('from-claude-dir'));
    write(dirs.claudeUser, 'c.md', agentFile('from-home-claude'));
    write(dirs.user, 'd.md', agentFile('from-home'));
    const { definitions } = loadDefinitions({
      userDir: dirs.user,
      projectDir: dirs.project,
      claudeDirs: [dirs.claudeUser, dirs.claudeProject],
      projectRoot: join(root, 'proj'),
    });
    expect(definitions.get('from-outrider-dir')!.fromRepository).toBe(true);
    expect(definitions.get('from-claude-dir')!.fromRepository).toBe(true);
    expect(definitions.get('from-home-claude')!.fromRepository).toBeUndefined();
    expect(definitions.get('from-home')!.fromRepository).toBeUndefined();
  });

  it('skips a huge file without reading it whole, and a FIFO without blocking', () => {
    const huge = write(dirs.project, 'huge.md', agentFile('huge', '', 'x'.repeat(MAX_AGENT_FILE_BYTES + 10)));
    const fifo = join(dirs.project, 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    write(dirs.project, 'fine.md', agentFile('fine'));
    const { definitions, warnings } = load();
    expect(definitions.has('huge')).toBe(false);
    expect(definitions.has('fine')).toBe(true);
    expect(warnings).toEqual([
      `${huge}: ${MAX_AGENT_FILE_BYTES + 10 + agentFile('huge', '', '').length} bytes; agent files over 256 KB are not read`,
      `${fifo}: cannot read the file (not a regular file)`,
    ]);
  });

  it(`stops after ${MAX_AGENT_FILES} files and says so`, () => {
    mkdirSync(dirs.project, { recursive: true });
    for (let i = 0; i <= MAX_AGENT_FILES; i += 1)
      writeFileSync(join(dirs.project, `a${String(i).padStart(5, '0')}.md`), agentFile(`a${i}`));
    const { definitions, warnings } = load();
    expect(definitions.size).toBe(2 + MAX_AGENT_FILES);
    expect(warnings).toEqual([
      `${dirs.project}: more than ${MAX_AGENT_FILES} agent files; the rest (from ${join(dirs.project, `a${String(MAX_AGENT_FILES).padStart(5, '0')}.md`)} on) are not read`,
    ]);
  });

  it(`stops reading a folder past ${MAX_AGENT_FOLDER_BYTES / 1024 / 1024} MB of agent files and says so`, () => {
    const body = 'y'.repeat(MAX_AGENT_FILE_BYTES - 1000);
    const count = Math.ceil(MAX_AGENT_FOLDER_BYTES / body.length) + 2;
    for (let i = 0; i < count; i += 1) write(dirs.project, `b${String(i).padStart(3, '0')}.md`, agentFile(`b${i}`, '', body));
    const { definitions, warnings } = load();
    const read = Math.ceil(MAX_AGENT_FOLDER_BYTES / (body.length + 60));
    expect(definitions.size).toBeLessThan(2 + count);
    expect(definitions.size).toBeGreaterThanOrEqual(2 + read - 1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^${dirs.project.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its agent files pass 8 MB; the rest \\(from .*b\\d{3}\\.md on\\) are not read$`,
      ),
    );
  });

  it('skips README.md and its kin without front matter, but not a lowercase file without it', () => {
    write(dirs.claudeProject, 'README.md', '# Agents\n\nCopy these into .claude/agents.\n');
    write(join(dirs.claudeProject, 'categories'), 'CONTRIBUTING.md', 'Add one agent per file.\n');
    const notes = write(dirs.claudeProject, 'notes.md', '# Notes\n');
    const { warnings } = load();
    expect(warnings).toEqual([
      `${notes}: no front matter: the file must start with a line "---", then fields such as "name: …", then "---"`,
    ]);
  });
});

describe('Claude Code fields', () => {
  const parse = (extra: string, source: 'claude' | 'project' = 'claude') =>
    parseDefinition(agentFile('x', extra), { path: '/p/x.md', source });

  it('accepts names with dots, never a leading dot or a slash', () => {
    expect(
      parseDefinition(agentFile('dotnet-framework-4.8-expert'), { path: '/p/d.md', source: 'claude' }).definition?.name,
    ).toBe('dotnet-framework-4.8-expert');
    for (const name of ['.hidden', '../up', 'a/b']) {
      expect(parseDefinition(agentFile(name), { path: '/p/d.md', source: 'claude' }).definition).toBeUndefined();
    }
  });

  it('reads maxTurns (Claude Code) and max_turns (ours), refusing both at once', () => {
    expect(parse('maxTurns: 50\n').definition?.maxTurns).toBe(50);
    expect(parse('max_turns: 7\n', 'project').definition?.maxTurns).toBe(7);
    expect(parse('maxTurns: 5\nmax_turns: 6\n').warnings).toEqual([
      '/p/x.md: max_turns: given twice, also as "maxTurns"; keep one',
    ]);
    expect(parse('maxTurns: lots\n').warnings).toEqual(['/p/x.md: maxTurns: expected a positive whole number, got "lots"']);
  });

  it('maps permissionMode in either spelling and case; refuses a mode it does not know', () => {
    expect(parse('permissionMode: plan\n').definition?.permissions).toEqual({ mode: 'plan', ask: true, asWritten: 'plan' });
    expect(parse('permission_mode: accept-edits\n', 'project').definition?.permissions).toMatchObject({ mode: 'accept-edits' });
    expect(parse('permissionMode: BypassPermissions\n').definition?.permissions).toMatchObject({ mode: 'yolo' });
    expect(parse('permissionMode: dontAsk\n').definition?.permissions).toMatchObject({ mode: 'default', ask: false });
    expect(parse('permissionMode:\n').definition?.permissions).toBeUndefined();
    expect(parse('permissionMode: [plan]\n').warnings[0]).toMatch(
      /^\/p\/x\.md: permissionMode: expected one of default, acceptEdits/,
    );
  });

  it('splits a tools string only at top-level commas', () => {
    const result = parse('tools: Read, Agent(worker, researcher), Bash(git diff:*), mcp__github__*, Grep\n');
    // An MCP pattern is kept as written: the servers start later, and the child's filter matches it.
    expect(result.definition?.tools).toEqual(['read_file', 'mcp__github__*', 'grep']);
    expect(result.warnings).toEqual([
      '/p/x.md: tools: dropped "Agent(worker, researcher)": sub-agents cannot start sub-agents; "Bash(git diff:*)": outrider cannot limit bash to a pattern',
    ]);
  });

  it('disallows quietly what outrider lacks anyway, reports a name nobody knows, and removes a tool denied in part', () => {
    expect(parse('disallowedTools: Agent, Task(explore), WebFetch, mcp__slack__post\n')).toMatchObject({
      // An MCP tool is removed by its name when its server is up.
      definition: { disallowedTools: ['mcp__slack__post'] },
      warnings: [],
    });
    expect(parse('disallowedTools: Bassh, Write\n')).toMatchObject({
      definition: { disallowedTools: ['write_file'] },
      warnings: ['/p/x.md: disallowedTools: "Bassh" is not a Claude Code tool; nothing removed'],
    });
    expect(parse('disallowed_tools: [agent_start]\n', 'project').warnings).toEqual([]);
  });

  it("reads Claude Code's effort (any case), and refuses a level it does not know", () => {
    expect(parse('effort: High\n').definition?.effort).toBe('high');
    expect(parse('effort:\n').definition).not.toHaveProperty('effort');
    expect(parse('effort: extreme\n').warnings).toEqual([
      '/p/x.md: effort: expected one of low, medium, high, max, got "extreme"',
    ]);
    expect(parse('effort: extreme\n').definition).toBeUndefined();
  });

  it('turns a literal \\n of a description into a line break', () => {
    expect(parse('').definition?.description).toBe('The x agent.');
    const text = '---\nname: x\ndescription: First line.\\nSecond: line.\\n\\nThird.\n---\nPrompt.\n';
    expect(parseDefinition(text, { path: '/p/x.md', source: 'claude' }).definition?.description).toBe(
      'First line.\nSecond: line.\n\nThird.',
    );
  });

  it('names the fields it cannot honour in one line with the other notes; background: true is what outrider does', () => {
    const result = parse('tools: Read, WebFetch\ninitialPrompt: go\nbackground: true\neffort: high\nmemory: user\n');
    expect(result.warnings).toEqual([
      '/p/x.md: tools: dropped "WebFetch": no outrider equivalent; ignored initialPrompt: no meaning for an outrider sub-agent',
    ]);
    expect(result.definition?.memory).toBe('user');
    expect(parse('background: false\n').warnings).toEqual(['/p/x.md: ignored background: no meaning for an outrider sub-agent']);
    expect(parse('color:\n').warnings).toEqual([]);
    // Claude Code's colours, as it writes them: kept for the rows; any other value is named.
    expect(parse('color: Purple\n').definition?.color).toBe('purple');
    expect(parse('color: red\n').warnings).toEqual([]);
    for (const bad of ['chartreuse', '"\\e[31m"', '[red]', '7']) {
      const odd = parse(`color: ${bad}\n`);
      expect(odd.definition?.color, bad).toBeUndefined();
      expect(odd.warnings, bad).toEqual([`/p/x.md: color: expected one of ${AGENT_COLORS.join(', ')}; ignored`]);
    }
  });
});
