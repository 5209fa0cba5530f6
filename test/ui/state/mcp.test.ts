import { describe, expect, it } from 'vitest';
import type { McpServerStatus } from '../../../src/core/mcp/types.js';
import { applyMcpStatus, mcpLines, mcpSegment } from '../../../src/ui/state/mcp.js';

const server = (name: string, overrides: Partial<McpServerStatus> = {}): McpServerStatus => ({
  name,
  source: 'settings',
  transport: 'stdio',
  state: 'starting',
  tools: [],
  ...overrides,
});

describe('the MCP state of the UI', () => {
  it('counts servers up in the footer segment, and none without servers', () => {
    let state = applyMcpStatus([], server('a')).state;
    state = applyMcpStatus(state, server('b')).state;
    expect(mcpSegment(state)).toBe('mcp 0/2');
    state = applyMcpStatus(state, server('a', { state: 'ready', tools: ['mcp__a__x'] })).state;
    expect(mcpSegment(state)).toBe('mcp 1/2');
    expect(state.map((s) => s.name)).toEqual(['a', 'b']);
    expect(mcpSegment([])).toBe('');
  });

  it('gives one warning line when a server fails, not again while it stays failed', () => {
    const first = applyMcpStatus([server('gh')], server('gh', { state: 'failed', error: 'cannot run "gh": no such program' }));
    expect(first.failed).toBe('MCP server "gh" failed: cannot run "gh": no such program; going on without its tools');
    expect(applyMcpStatus(first.state, server('gh', { state: 'failed', error: 'again' })).failed).toBeUndefined();
  });

  it('says once that a server needs a sign-in, and /mcp says how to sign in', () => {
    const asked = applyMcpStatus(
      [server('linear')],
      server('linear', { state: 'needs-auth', transport: 'http', error: 'the server asks for a sign-in (OAuth)' }),
    );
    expect(asked.failed).toBe('MCP server "linear" needs you to sign in: /mcp login linear (it opens the page in your browser)');
    expect(applyMcpStatus(asked.state, asked.state[0]!).failed).toBeUndefined();
    expect(mcpLines(asked.state)).toEqual([
      'linear  needs-auth  http, from settings',
      '  sign in: /mcp login linear (it opens the page in your browser)',
    ]);
  });

  it('lists each server for /mcp: state, transport, source, its tools, its last error', () => {
    expect(
      mcpLines([
        server('everything', { state: 'ready', tools: ['mcp__everything__echo', 'mcp__everything__get-sum'] }),
        server('api', { state: 'failed', transport: 'http', source: '.mcp.json', error: 'connection refused' }),
      ]),
    ).toEqual([
      'everything  ready  stdio, from settings, 2 tools',
      '  mcp__everything__echo, mcp__everything__get-sum',
      'api  failed  http, from .mcp.json',
      '  last error: connection refused',
    ]);
    expect(mcpLines([])[0]).toMatch(/^no MCP servers/);
  });
});
