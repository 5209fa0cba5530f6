import { describe, expect, it } from 'vitest';
import { notTrustedLine, quoted, serverLines, shownUrl, stateLine } from '../../src/cli/mcp-list.js';
import { mcpLoginCommand as loginCommand } from '../../src/core/mcp/warnings.js';

describe('outrider mcp list lines', () => {
  it.each([
    ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp'],
    ['https://user:hunter2@mcp.example.com/mcp', 'https://user:***@mcp.example.com/mcp'],
    ['https://mcp.example.com/sse?token=abc&x=&flag#frag', 'https://mcp.example.com/sse?token=***&x=&flag#frag'],
    ['https://mcp.example.com/mcp?key=${MCP_KEY}&b=${B:-dflt}', 'https://mcp.example.com/mcp?key=${MCP_KEY}&b=${B:-dflt}'],
    ['https://mcp.example.com/mcp?key=pre${MCP_KEY}', 'https://mcp.example.com/mcp?key=***'],
    ['${BASE_URL}/mcp?a=1=2', '${BASE_URL}/mcp?a=***'],
    ['not a url at all', 'not a url at all'],
  ])('shows %s as %s', (url, shown) => {
    expect(shownUrl(url)).toBe(shown);
  });

  it('names of env and headers only, every piece escaped', () => {
    const lines = serverLines(
      {
        name: 'x\u001b[2J',
        source: '.mcp.json',
        entry: { type: 'http', url: 'https://h.test/\u202emcp', headers: { Authorization: 'Bearer s3cret', 'X-\u0007': 'v' } },
      },
      'ready: 1 tool',
    );
    expect(lines).toEqual([
      'x\\u{1b}[2J: https://h.test/\\u{202e}mcp (http, .mcp.json; headers: Authorization, X-\\u{7})',
      '  ready: 1 tool',
    ]);
    expect(
      serverLines(
        { name: 's', source: 'settings', entry: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'], env: { TOKEN: 'v' } } },
        '',
      ),
    ).toEqual(['s: npx -y pkg (stdio, settings; env: TOKEN)', '  ']);
  });

  it('a login command a shell reads back as the name', () => {
    expect(loginCommand('linear')).toBe('outrider mcp login linear');
    expect(loginCommand("it's mine; rm -rf ~")).toBe(`outrider mcp login 'it'\\''s mine; rm -rf ~'`);
    expect(loginCommand('$(id)')).toBe(`outrider mcp login '$(id)'`);
    expect(quoted('a"b\u0007\u200b')).toBe('"a\\"b\\u0007\\u{200b}"');
  });

  it('states, and why a project server is not started', () => {
    const status = { name: 'n', source: 'settings', transport: 'http' as const, tools: ['a', 'b'] };
    expect(stateLine({ ...status, state: 'ready' })).toBe('ready: 2 tools');
    expect(stateLine({ ...status, state: 'needs-auth', name: 'my server' })).toBe(
      "needs-auth: sign in with outrider mcp login 'my server'",
    );
    expect(stateLine({ ...status, state: 'failed', error: 'boom\u001b[0m' })).toBe('failed: boom\\u{1b}[0m');
    expect(notTrustedLine({ stored: 'untrusted', trustFile: '/h/trusted-folders.json' })).toBe(
      'not started: you chose not to trust this folder (pass --trust, or remove it from /h/trusted-folders.json to be asked again)',
    );
    expect(notTrustedLine({ stored: 'changed', trustFile: '/h/t.json' })).toMatch(
      /^not started: the project changed its servers/,
    );
  });
});
