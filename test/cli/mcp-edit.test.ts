import { lstatSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { runMcpCommand } from '../../src/cli/mcp-command.js';
import { mcpServersHere } from '../../src/core/session/mcp-here.js';

/** `outrider mcp add|add-json|get|remove` against temp folders: what each scope's file holds after. */
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-mcp-edit-'));
  home = path.join(base, 'home');
  project = path.join(base, 'project');
  mkdirSync(home);
  mkdirSync(project);
  env = { HOME: home, OUTRIDER_HOME: path.join(home, '.outrider'), NO_COLOR: '1' };
});

function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

async function mcp(...argv: string[]) {
  const out = sink();
  const err = sink();
  const code = await runMcpCommand(argv, {
    env,
    cwd: project,
    stdout: out.stream,
    stderr: err.stream as unknown as NodeJS.WriteStream,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>;
const claudeJson = () => path.join(home, '.claude.json');
const mcpJson = () => path.join(project, '.mcp.json');
const userSettings = () => path.join(home, '.outrider', 'settings.json');

describe('outrider mcp add', () => {
  it("writes a stdio server to the local scope, the server's flags after -- kept as its arguments", async () => {
    const result = await mcp(
      'add',
      '-e',
      'API_KEY=k-1',
      '-e',
      'MODE=a=b',
      'files',
      '--',
      'npx',
      '-y',
      'some-server',
      '--root',
      '.',
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('added MCP server "files" (stdio) to the local scope');
    const local = readJson(claudeJson()).projects[project].mcpServers;
    expect(local).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', 'some-server', '--root', '.'], env: { API_KEY: 'k-1', MODE: 'a=b' } },
    });
    expect(statSync(claudeJson()).mode & 0o777).toBe(0o600);
  });

  it('writes an http server with headers to the user settings, keeping their other keys and indentation', async () => {
    mkdirSync(path.dirname(userSettings()));
    writeFileSync(userSettings(), JSON.stringify({ model: 'm', mcpServers: { old: { command: 'x' } } }, null, 4));
    const result = await mcp(
      'add',
      '--transport',
      'http',
      '--scope',
      'user',
      '-H',
      'Authorization: Bearer t0k',
      'docs',
      'https://h.test/mcp',
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const text = readFileSync(userSettings(), 'utf8');
    expect(text).toMatch(/^ {4}"model": "m",$/m);
    expect(JSON.parse(text)).toEqual({
      model: 'm',
      mcpServers: {
        old: { command: 'x' },
        docs: { type: 'http', url: 'https://h.test/mcp', headers: { Authorization: 'Bearer t0k' } },
      },
    });
  });

  it('writes a project server to .mcp.json and warns that the value it holds is usually committed', async () => {
    writeFileSync(mcpJson(), JSON.stringify({ $schema: 's', mcpServers: { a: { command: 'a' } } }));
    const result = await mcp('add', '-s', 'project', '-e', 'TOKEN=secret-1', '-e', 'REF=${REF}', 'b', '--', 'b-server');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('.mcp.json is usually committed, and it now holds the value of TOKEN as given');
    expect(result.stderr).not.toContain('REF');
    expect(readJson(mcpJson())).toEqual({
      $schema: 's',
      mcpServers: {
        a: { command: 'a' },
        b: { type: 'stdio', command: 'b-server', args: [], env: { TOKEN: 'secret-1', REF: '${REF}' } },
      },
    });
  });

  it('add-json writes the entry as given (keys other tools read kept)', async () => {
    const json = '{"type":"sse","url":"https://h.test/sse","timeout":5}';
    expect((await mcp('add-json', '-s', 'project', 'events', json)).code).toBe(0);
    expect(readJson(mcpJson()).mcpServers.events).toEqual({ type: 'sse', url: 'https://h.test/sse', timeout: 5 });
  });

  it('refuses a name already in that scope, and leaves the file as it was', async () => {
    await mcp('add', '-s', 'project', 'dup', '--', 'one');
    const before = readFileSync(mcpJson(), 'utf8');
    const result = await mcp('add', '-s', 'project', 'dup', '--', 'two');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"dup" is already in the project scope');
    expect(result.stderr).toContain('run outrider mcp remove dup --scope project first');
    expect(readFileSync(mcpJson(), 'utf8')).toBe(before);
    expect((await mcp('add', '-s', 'user', 'dup', '--', 'two')).code).toBe(0);
  });

  it.each([
    ['a path', '../x'],
    ['a space', 'a b'],
    ['65 characters', 'x'.repeat(65)],
    ['10 KB', 'n'.repeat(10_000)],
    ['an escape', '\u001b[2J'],
    ['nothing', ''],
    ['__proto__', '__proto__'],
  ])('refuses a name of %s', async (_what, name) => {
    const result = await mcp('add', '-s', 'project', name, '--', 'cmd');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a server name: use letters, digits, _ and - (up to 64)');
    expect(result.stderr.length).toBeLessThan(400);
    expect(result.stderr).not.toContain('\u001b[');
    expect(() => statSync(mcpJson())).toThrow();
  });

  it.each([
    [['add-json', 'x', '{"command":""}'], 'mcpServers.x.command: expected a program to run (a non-empty string), got ""'],
    [['add-json', 'x', '{"type":"ftp","url":"u"}'], 'mcpServers.x.type'],
    [['add-json', 'x', '{"command":"c","env":{"A":1}}'], 'mcpServers.x.env.A'],
    [['add', '-t', 'http', 'x', 'not a url'], 'is not a URL'],
    [['add', '-t', 'http', 'x', 'file:///etc/passwd'], 'is not http(s)'],
  ])("refuses %j with the reader's words", async (argv, words) => {
    const result = await mcp(...argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(words);
    expect(result.stderr).toContain(claudeJson());
    expect(() => statSync(claudeJson())).toThrow();
  });

  it.each([
    [['add', '-e', 'NOEQUALS', 'x', '--', 'c'], '-e "NOEQUALS": write KEY=value'],
    [['add', '-t', 'http', '-H', 'no colon', 'x', 'https://h.test'], '-H "no colon": write "Name: value"'],
    [['add', '-t', 'http', '-e', 'A=1', 'x', 'https://h.test'], '-e is for stdio servers'],
    [['add', '-H', 'A: 1', 'x', '--', 'c'], '-H is for http and sse servers'],
    [['add', '-t', 'http', 'x', 'https://h.test', '--', '-H'], 'takes its URL alone'],
    [['add-json', 'x', '[1]'], "the server's JSON must be an object"],
    [['add-json', 'x', '{nope'], "the server's JSON does not parse"],
  ])('refuses %j as a usage error', async (argv, words) => {
    const result = await mcp(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(words);
  });

  it('refuses to rewrite a file with comments, which it would drop', async () => {
    writeFileSync(mcpJson(), '{ // ours\n "mcpServers": {} }');
    const result = await mcp('add', '-s', 'project', 'x', '--', 'c');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('has comments or trailing commas, which writing it back would drop');
    expect(readFileSync(mcpJson(), 'utf8')).toBe('{ // ours\n "mcpServers": {} }');
  });

  it("keeps ~/.claude.json's other keys and folders", async () => {
    writeFileSync(
      claudeJson(),
      JSON.stringify({ numStartups: 3, projects: { '/else': { mcpServers: { e: { command: 'e' } } } } }),
    );
    expect((await mcp('add', 'x', '--', 'c')).code).toBe(0);
    const after = readJson(claudeJson());
    expect(after.numStartups).toBe(3);
    expect(after.projects['/else']).toEqual({ mcpServers: { e: { command: 'e' } } });
    expect(after.projects[project].mcpServers.x.command).toBe('c');
  });
});

describe('what a session reads', () => {
  it('starts the servers added to each scope', async () => {
    expect((await mcp('add', '-s', 'local', 'in-local', '--', 'a')).code).toBe(0);
    expect((await mcp('add', '-s', 'project', 'in-project', '--', 'b')).code).toBe(0);
    expect((await mcp('add-json', '-s', 'user', 'in-user', '{"type":"http","url":"https://h.test/mcp"}')).code).toBe(0);
    const here = mcpServersHere({ cwd: project, env, flags: {}, trustProject: true });
    expect(here.warnings).toEqual([]);
    expect(here.specs.map((spec) => [spec.name, spec.source])).toEqual([
      ['in-local', '~/.claude.json'],
      ['in-user', 'settings'],
      ['in-project', '.mcp.json'],
    ]);
  });

  it('writes through a symlinked settings file, leaving the link in place', async () => {
    const dotfiles = path.join(home, 'dotfiles.json');
    writeFileSync(dotfiles, '{}');
    mkdirSync(path.dirname(userSettings()));
    symlinkSync(dotfiles, userSettings());
    expect((await mcp('add', '-s', 'user', 'x', '--', 'c')).code).toBe(0);
    expect(lstatSync(userSettings()).isSymbolicLink()).toBe(true);
    expect(readJson(dotfiles).mcpServers.x.command).toBe('c');
  });
});

describe('outrider mcp get and remove', () => {
  it('get shows scope, file, transport and what it runs, values masked', async () => {
    await mcp('add', '-s', 'user', '-e', 'API_KEY=hunter2', 'files', '--', 'npx', '-y', 'srv');
    await mcp('add', '-t', 'http', '-H', 'Authorization: Bearer s3', 'files', 'https://h.test/mcp?key=q1');
    const result = await mcp('get', 'files');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      [
        'files:',
        '  scope: local (yours, in this folder only)',
        `  file: ${claudeJson()} (projects[${JSON.stringify(project)}].mcpServers)`,
        '  transport: http',
        '  url: https://h.test/mcp?key=***',
        '  headers: Authorization=***',
        '',
        'files:',
        '  scope: user (yours, in every folder)',
        `  file: ${userSettings()} (mcpServers)`,
        '  transport: stdio',
        '  command: npx -y srv',
        '  env: API_KEY=***',
        '',
      ].join('\n'),
    );
    const missing = await mcp('get', 'nope');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no MCP server named "nope"');
  });

  it('remove takes it from the one scope that has it, and refuses when several do', async () => {
    await mcp('add', '-s', 'project', 'one', '--', 'c');
    await mcp('add', '-s', 'project', 'both', '--', 'c');
    await mcp('add', '-s', 'user', 'both', '--', 'c');
    const removed = await mcp('remove', 'one');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('removed MCP server "one" from the project scope');
    expect(readJson(mcpJson()).mcpServers).toEqual({ both: { type: 'stdio', command: 'c', args: [], env: {} } });

    const ambiguous = await mcp('remove', 'both');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('"both" is in the project and user scopes: pass --scope project or --scope user');
    expect(Object.keys(readJson(mcpJson()).mcpServers)).toEqual(['both']);

    expect((await mcp('remove', 'both', '--scope', 'user')).code).toBe(0);
    expect(readJson(userSettings()).mcpServers).toEqual({});
    const wrongScope = await mcp('remove', 'both', '-s', 'local');
    expect(wrongScope.code).toBe(1);
    expect(wrongScope.stderr).toContain('no MCP server named "both" in the local scope; it is in the project scope');
  });

  it("points at claude mcp remove for a server of Claude Code's user scope", async () => {
    writeFileSync(claudeJson(), JSON.stringify({ mcpServers: { theirs: { command: 'c' } } }));
    const result = await mcp('remove', 'theirs');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is in Claude Code's user scope");
    expect(result.stderr).toContain('claude mcp remove -s user');
    expect(readJson(claudeJson()).mcpServers).toEqual({ theirs: { command: 'c' } });
  });
});
