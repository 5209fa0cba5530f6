import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMcpText, readMcpConfigArgs } from '../../../src/core/config/mcp-files.js';
import { describeEntry, expandServer } from '../../../src/core/config/mcp-servers.js';
import { validateSettings } from '../../../src/core/config/settings.js';

describe('MCP server entries as Claude Code writes them', () => {
  it('reads stdio and remote entries, filling in the type, and ignores keys other tools add', () => {
    const servers = parseMcpText(
      `{
        // comments and trailing commas, as editors write them
        "mcpServers": {
          "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": { "A": "1" }, "autoApprove": [] },
          "api": { "type": "http", "url": "https://api.test/mcp", "headers": { "Authorization": "Bearer \${TOKEN}" } },
          "old": { "type": "sse", "url": "https://old.test/sse" },
          "bare": { "url": "https://bare.test/mcp" },
          "alias": { "type": "streamable-http", "url": "https://alias.test/mcp" },
        },
        "otherTool": true,
      }`,
      '.mcp.json',
    );
    expect(servers).toEqual({
      fs: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { A: '1' } },
      api: { type: 'http', url: 'https://api.test/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } },
      old: { type: 'sse', url: 'https://old.test/sse' },
      bare: { type: 'http', url: 'https://bare.test/mcp' },
      alias: { type: 'http', url: 'https://alias.test/mcp' },
    });
  });

  it.each([
    [
      '{ "mcpServers": { "a": { "command": "x", "args": [1] } } }',
      'f: mcpServers.a.args[0]: expected an argument (a string), got 1',
    ],
    [
      '{ "mcpServers": { "a": { "type": "ws", "url": "x" } } }',
      'f: mcpServers.a.type: expected a server type: "stdio", "http" or "sse", got "ws"',
    ],
    [
      '{ "mcpServers": { "a": "npx server" } }',
      'f: mcpServers.a: expected a server such as { "command": "npx", "args": ["-y", "some-server"] } or { "type": "http", "url": "https://…" }, got "npx server"',
    ],
    [
      '{ "servers": {} }',
      'f: mcpServers: expected an object mapping server names to { "command": … } or { "type": "http", "url": … }, got nothing',
    ],
    [
      '{ "mcpServers": { "a": { "command": "x" }, }',
      'f: invalid JSON at line 1, column 45: expected "}" to close the object, found the end of the file',
    ],
  ])('says what is wrong and where: %s', (text, message) => {
    expect(() => parseMcpText(text, 'f')).toThrow(message);
  });

  it('is a settings key too, validated the same way', () => {
    expect(validateSettings({ mcpServers: { a: { command: 'x' } } }, 's').mcpServers).toEqual({
      a: { type: 'stdio', command: 'x' },
    });
    expect(() => validateSettings({ mcpServers: { a: { url: 5 } } }, 's')).toThrow(
      's: mcpServers.a.url: expected a URL (a string), got 5',
    );
    expect(() => validateSettings({ permissions: { allow: 'mcp__x__*' } }, 's')).toThrow(
      's: permissions.allow: expected a list of rules',
    );
    expect(() => validateSettings({ mcp: { toolTimeout: 5 } }, 's')).toThrow(
      's: mcp.toolTimeout: unknown setting (did you mean "toolTimeoutMs"?); expected one of startupTimeoutMs, toolTimeoutMs',
    );
  });
});

describe('${VAR} expansion from the session environment', () => {
  const env = { TOKEN: 'sekret', EMPTY: '', HOST: 'h.test' };

  it('replaces ${VAR} and ${VAR:-default} in the command, args, env, url and headers', () => {
    expect(
      expandServer(
        { type: 'stdio', command: '${BIN:-npx}', args: ['--token=${TOKEN}', '${EMPTY:-fallback}'], env: { T: '${TOKEN}' } },
        env,
      ),
    ).toEqual({
      ok: true,
      server: { type: 'stdio', command: 'npx', args: ['--token=sekret', 'fallback'], env: { T: 'sekret' } },
    });
    const remote = expandServer({ type: 'http', url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } }, env);
    expect(remote.ok && remote.server).toEqual({
      type: 'http',
      url: new URL('https://h.test/mcp'),
      headers: { Authorization: 'Bearer sekret' },
    });
  });

  it('refuses a variable that is not set and has no default, naming it', () => {
    expect(expandServer({ type: 'http', url: 'https://x.test', headers: { A: '${NOPE}', B: '${NADA}' } }, env)).toEqual({
      ok: false,
      error: 'it uses ${NOPE}, ${NADA}, which are not set; set it, or write ${NAME:-default}',
    });
  });

  it('refuses a URL that is not http(s)', () => {
    expect(expandServer({ type: 'sse', url: 'file:///etc/passwd' }, env)).toEqual({
      ok: false,
      error: 'its url "file:///etc/passwd" is not http(s)',
    });
    expect(expandServer({ type: 'http', url: '${HOST}' }, env)).toMatchObject({
      ok: false,
      error: expect.stringContaining('is not a URL'),
    });
  });

  it('describes an entry as its command line or its URL', () => {
    expect(describeEntry({ type: 'stdio', command: 'npx', args: ['-y', 's'] })).toBe('npx -y s');
    expect(describeEntry({ type: 'sse', url: 'https://x.test/sse' })).toBe('sse https://x.test/sse');
  });
});

describe('--mcp-config', () => {
  it('reads files (relative to the cwd) and JSON text, later winning for a name', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-mcp-config-'));
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ mcpServers: { one: { command: 'a' }, two: { command: 'a' } } }));
    expect(readMcpConfigArgs(['a.json', '{"mcpServers": {"two": {"command": "b"}}}'], dir)).toEqual({
      one: { type: 'stdio', command: 'a' },
      two: { type: 'stdio', command: 'b' },
    });
  });

  it('stops on a file that is missing', () => {
    expect(() => readMcpConfigArgs(['nope.json'], os.tmpdir())).toThrow(
      '--mcp-config nope.json: no such file; give a file of { "mcpServers": … } or the JSON itself',
    );
  });
});
