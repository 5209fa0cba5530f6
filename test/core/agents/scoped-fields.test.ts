import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../../src/core/agents/definitions.js';
import { MAX_AGENT_MCP_SERVERS, MAX_AGENT_SKILLS, hasScopedFields } from '../../../src/core/agents/scoped-fields.js';

/** An agent file with `extra` front matter, read as a Claude Code file. */
const parse = (extra: string) =>
  parseDefinition(`---\nname: x\ndescription: The x agent.\n${extra}---\nYou are x.\n`, { path: '/p/x.md', source: 'claude' });

describe('skills', () => {
  it('reads a list or a comma string, trims, drops duplicates and empty items', () => {
    expect(parse('skills: [pdf, " changelog ", pdf, ""]\n').definition?.skills).toEqual(['pdf', 'changelog']);
    expect(parse('skills: pdf, changelog\n').definition?.skills).toEqual(['pdf', 'changelog']);
    expect(parse('skills:\n  - pdf\n  -\n').definition?.skills).toEqual(['pdf']);
    expect(parse('skills:\n').definition?.skills).toBeUndefined();
  });

  it('drops names that cannot be a skill (paths, capitals) with a note, and keeps the file', () => {
    const result = parse('skills: [../../etc/passwd, /abs, Upper, .hidden, ok]\n');
    expect(result.definition?.skills).toEqual(['ok']);
    expect(result.warnings).toEqual([
      '/p/x.md: skills: dropped "../../etc/passwd", "/abs", "Upper", ".hidden": not a skill name (lowercase letters, digits, "-", "_", ".")',
    ]);
  });

  it('refuses a value of the wrong type, and a list longer than the cap', () => {
    expect(parse('skills: {a: 1}\n').warnings).toEqual([
      '/p/x.md: skills: expected a list of skill names such as [pdf, changelog], got an object {"a":1}',
    ]);
    const many = Array.from({ length: MAX_AGENT_SKILLS + 1 }, (_, i) => `s${i}`).join(', ');
    const result = parse(`skills: [${many}]\n`);
    expect(result.definition).toBeUndefined();
    expect(result.warnings[0]).toMatch(/^\/p\/x\.md: skills: expected at most 32 skill names, got a list/);
  });
});

describe('mcpServers', () => {
  it("reads names and inline entries, Claude Code's list and .mcp.json's map alike", () => {
    const listed = parse(
      'mcpServers:\n  - github\n  - notes: {command: npx, args: [notes-mcp]}\n  - web: {type: http, url: "https://x.test/mcp"}\n',
    );
    expect(listed.definition?.mcpServers).toEqual([
      { name: 'github' },
      { name: 'notes', entry: { type: 'stdio', command: 'npx', args: ['notes-mcp'] } },
      { name: 'web', entry: { type: 'http', url: 'https://x.test/mcp' } },
    ]);
    expect(parse('mcpServers:\n  notes: {command: npx}\n').definition?.mcpServers).toEqual([
      { name: 'notes', entry: { type: 'stdio', command: 'npx' } },
    ]);
    expect(listed.warnings).toEqual([]);
  });

  it('keeps a command that looks like shell as the program name it is (it runs as argv, never through a shell)', () => {
    const server = parse('mcpServers:\n  - evil: {command: "rm -rf ~; curl x | sh", args: ["$(id)"]}\n').definition?.mcpServers;
    expect(server).toEqual([{ name: 'evil', entry: { type: 'stdio', command: 'rm -rf ~; curl x | sh', args: ['$(id)'] } }]);
  });

  it('refuses wrong types, bad entries, names that are not names, and too many servers', () => {
    expect(parse('mcpServers: github\n').warnings).toEqual([
      '/p/x.md: mcpServers: expected a list of server names or { name: { command: … } } entries, got "github"',
    ]);
    expect(parse('mcpServers:\n  - notes: {command: 5}\n').definition).toBeUndefined();
    expect(parse('mcpServers:\n  - notes: {type: ftp, url: x}\n').definition).toBeUndefined();
    expect(parse('mcpServers:\n  - 7\n').definition).toBeUndefined();
    expect(parse('mcpServers:\n  - "../../x"\n').warnings[0]).toMatch(/mcpServers: expected server names of letters/);
    expect(parse('mcpServers:\n  - "a\\u0007b": {command: x}\n').definition).toBeUndefined();
    const many = Array.from({ length: MAX_AGENT_MCP_SERVERS + 1 }, (_, i) => `  - s${i}`).join('\n');
    expect(parse(`mcpServers:\n${many}\n`).warnings[0]).toMatch(/mcpServers: expected at most 16 servers/);
  });

  it('keeps the first of a server given twice, and says so', () => {
    const result = parse('mcpServers:\n  - a\n  - a: {command: x}\n');
    expect(result.definition?.mcpServers).toEqual([{ name: 'a' }]);
    expect(result.warnings).toEqual(['/p/x.md: mcpServers: "a" given twice; the first is used']);
  });
});

describe('hooks', () => {
  it("reads the settings' shape; Stop becomes SubagentStop; events a job has no moment for are named", () => {
    const result = parse(
      [
        'hooks:',
        '  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: ./check.sh}]}]',
        '  Stop: [{hooks: [{type: command, command: ./done.sh}]}]',
        '  SubagentStop: [{hooks: [{type: command, command: ./also.sh}]}]',
        '  SessionStart: [{hooks: [{type: command, command: ./start.sh}]}]',
        '',
      ].join('\n'),
    );
    expect(result.definition?.hooks).toEqual({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }],
      SubagentStop: [
        { hooks: [{ type: 'command', command: './done.sh' }] },
        { hooks: [{ type: 'command', command: './also.sh' }] },
      ],
    });
    expect(result.warnings).toEqual(['/p/x.md: hooks: "SessionStart" does not run for a job (PreToolUse, PostToolUse, Stop do)']);
  });

  it('refuses wrong shapes and too many groups, and never lets a key reach the prototype', () => {
    expect(parse('hooks: [a, b]\n').definition).toBeUndefined();
    expect(parse('hooks:\n  PreToolUse: {matcher: x}\n').definition).toBeUndefined();
    expect(parse('hooks:\n  PreToolUse: [{hooks: [{type: command, timeout: -1}]}]\n').definition).toBeUndefined();
    const groups = Array.from({ length: 33 }, () => '    - hooks: [{type: command, command: x}]').join('\n');
    expect(parse(`hooks:\n  PreToolUse:\n${groups}\n`).warnings[0]).toMatch(/hooks: expected at most 32 hook groups/);
    const polluted = parse('hooks:\n  __proto__: [{hooks: [{type: command, command: x}]}]\n');
    expect(polluted.definition?.hooks).toBeUndefined();
    expect(({} as Record<string, unknown>).hooks).toBeUndefined();
  });
});

describe('memory', () => {
  it('is user, project or local, in any case; anything else refuses the file', () => {
    expect(parse('memory: Project\n').definition?.memory).toBe('project');
    expect(parse('memory: local\n').definition?.memory).toBe('local');
    expect(parse('memory:\n').definition?.memory).toBeUndefined();
    for (const value of ['../../etc', 'true', '[user]', 'global']) {
      const result = parse(`memory: ${value}\n`);
      expect(result.definition).toBeUndefined();
      expect(result.warnings[0]).toMatch(/^\/p\/x\.md: memory: expected one of user, project, local, got /);
    }
  });

  it('makes a definition one whose jobs have their own parts', () => {
    expect(hasScopedFields(parse('memory: user\n').definition!)).toBe(true);
    expect(hasScopedFields(parse('mcpServers: [github]\n').definition!)).toBe(true);
    expect(hasScopedFields(parse('skills: [pdf]\n').definition!)).toBe(false);
    expect(hasScopedFields(parse('').definition!)).toBe(false);
  });
});
