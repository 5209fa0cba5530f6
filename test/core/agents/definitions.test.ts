import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ALL_TOOLS,
  DEFAULT_READ_ONLY_TOOLS,
  loadDefinitions,
  parseDefinition,
} from '../../../src/core/agents/definitions.js';

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
    expect(result.definitions.get('explore')).toMatchObject({ source: 'claude', systemPrompt: 'claude prompt', path: claudePath });

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

  it('maps Read, Grep, Glob, Bash to our tools, drops WebFetch with a warning, ignores color, and maps sonnet to inherit', () => {
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
      model: 'inherit',
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
    expect(warnings).toEqual([`${path}: tools: dropped "Task", "WebSearch": no outrider equivalent`]);
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
      description:
        'Use this agent when code changes need testing. Examples:\\n\\n<example>\\nContext: The user wrote code.\\nuser: "Run the tests"\\nassistant: "I\'ll use the test-runner agent"\\n</example>',
      // MCP servers start after definitions load: their names and patterns are kept as written.
      tools: ['bash', 'read_file', 'edit_file', 'mcp__github__get_issue', 'mcp__db__*'],
    });
    expect(warnings).toEqual([`${path}: tools: dropped "WebSearch": no outrider equivalent`]);
  });

  it('a Claude file without tools: gets every tool, as in Claude Code', () => {
    write(dirs.claudeUser, 'helper.md', agentFile('helper', 'model: opus\ncolor: green\n'));
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

  it('uses our tool names directly and drops unknown ones (and agent_* tools) with a warning', () => {
    const path = write(dirs.user, 'x.md', agentFile('x', 'tools: [read_file, Read, agent_start, read_result]\n'));
    const { definitions, warnings } = load();
    expect(definitions.get('x')!.tools).toEqual(['read_file', 'read_result']);
    expect(warnings).toEqual([
      `${path}: tools: dropped unknown tools "Read", "agent_start"; sub-agents cannot start sub-agents (known tools: read_file, write_file, edit_file, bash, grep, glob, list_dir, read_result)`,
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

  it('maps Claude model tiers to inherit in our files too, and defaults the model to inherit', () => {
    write(dirs.user, 'a.md', agentFile('a', 'model: haiku\n'));
    write(dirs.user, 'b.md', agentFile('b'));
    const { definitions } = load();
    expect(definitions.get('a')!.model).toBe('inherit');
    expect(definitions.get('b')!.model).toBe('inherit');
  });
});

describe('malformed files', () => {
  const cases: Array<[string, string, string]> = [
    ['no front matter', '# Reviewer\n\nYou review code.\n', 'no front matter: the file must start with a line "---", then fields such as "name: …", then "---"'],
    ['unclosed front matter', '---\nname: x\ndescription: y\n', 'front matter opened on line 1 is never closed: add a line "---" after the fields'],
    ['bad YAML line', '---\nname: x\ndescription: y\njust words\n---\nPrompt.\n', 'line 4: invalid YAML: Implicit map keys need to be followed by map values (each field is a line "key: value")'],
    ['missing name', '---\ndescription: y\n---\nPrompt.\n', 'missing "name" in the front matter'],
    ['missing description', '---\nname: x\n---\nPrompt.\n', 'missing "description" in the front matter'],
    ['empty description', '---\nname: x\ndescription: ""\n---\nPrompt.\n', 'missing "description" in the front matter'],
    ['bad name', '---\nname: Code Reviewer\ndescription: y\n---\nPrompt.\n', 'name: expected lowercase letters, digits, "-" or "_" (e.g. "code-reviewer"), got "Code Reviewer"'],
    ['list description', '---\nname: x\ndescription: [a, b]\n---\nPrompt.\n', 'description: expected text, got a list ["a","b"]'],
    ['word limit', '---\nname: x\ndescription: y\nmax_turns: ten\n---\nPrompt.\n', 'max_turns: expected a positive whole number, got "ten"'],
    ['fractional limit', '---\nname: x\ndescription: y\nmax_total_tokens: 1.5\n---\nPrompt.\n', 'max_total_tokens: expected a positive whole number, got 1.5'],
    ['zero limit', '---\nname: x\ndescription: y\nmax_duration_s: 0\n---\nPrompt.\n', 'max_duration_s: expected a positive whole number, got 0'],
    ['negative limit', '---\nname: x\ndescription: y\nmax_turns: -2\n---\nPrompt.\n', 'max_turns: expected a positive whole number, got -2'],
    ['tools not a list', '---\nname: x\ndescription: y\ntools: true\n---\nPrompt.\n', 'tools: expected a list of tool names such as [read_file, grep], got true'],
    ['unclosed tools list', '---\nname: x\ndescription: y\ntools: [read_file, grep\n---\nPrompt.\n', 'line 4: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ['model a list', '---\nname: x\ndescription: y\nmodel: [a]\n---\nPrompt.\n', 'model: expected a model id or "inherit", got a list ["a"]'],
    ['both disallowed spellings', '---\nname: x\ndescription: y\ndisallowed_tools: [bash]\ndisallowedTools: [bash]\n---\nPrompt.\n', 'disallowed_tools: given twice, also as "disallowedTools"; keep one'],
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

  it('an unreadable file is reported and the others load', () => {
    // A folder named like a definition: unreadable as a file for any user, root included.
    const path = join(dirs.project, 'folder.md');
    mkdirSync(path, { recursive: true });
    write(dirs.project, 'open.md', agentFile('open'));
    const { definitions, warnings } = load();
    expect(warnings).toHaveLength(1);
    expect(warnings[0].startsWith(`${path}: cannot read the file (EISDIR`)).toBe(true);
    expect(definitions.has('open')).toBe(true);
  });

  it('ignores keys it does not read, whatever they hold (Claude hooks and the like)', () => {
    write(dirs.claudeUser, 'x.md', agentFile('x', 'hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command}]\ncolor: blue\n'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([]);
    expect(definitions.has('x')).toBe(true);
  });

  it('refuses a file with a YAML syntax error anywhere, also under a key it does not read, naming the line', () => {
    // YAML cannot tell where an unclosed string ends, so no field of the block can be trusted.
    const path = write(dirs.claudeUser, 'x.md', agentFile('x', 'color: "unterminated\n'));
    const { definitions, warnings } = load();
    expect(warnings).toEqual([`${path}: line 4: invalid YAML: Missing closing "quote (close the string with the quote it opens with)`]);
    expect(definitions.has('x')).toBe(false);
  });

  it('reports a field of the wrong kind with what was found', () => {
    const cases: Array<[string, string]> = [
      ['max_turns: [3]', 'max_turns: expected a positive whole number, got a list [3]'],
      ['max_duration_s: 1e300', 'max_duration_s: expected a positive whole number, got 1e+300'],
      ['tools: {read_file: true}', 'tools: expected a list of tool names such as [read_file, grep], got an object {"read_file":true}'],
      ['tools: [read_file, [grep]]', 'tools: expected a list of tool names such as [read_file, grep], got a list ["read_file",["grep"]]'],
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
    expect(parseDefinition(agentFile('x').replace('name: x', 'name: 7'), { path: '/p/b.md', source: 'user' }).definition?.name).toBe('7');
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
