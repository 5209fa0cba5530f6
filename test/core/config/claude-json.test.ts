import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeJsonServers } from '../../../src/core/config/claude-json.js';

function home(content: string | object) {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-claude-json-'));
  const cwd = path.join(base, 'project');
  mkdirSync(cwd);
  writeFileSync(path.join(base, '.claude.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return { home: base, cwd };
}

describe('~/.claude.json servers', () => {
  it("reads the user scope and this folder's local scope (by its path or real path); other folders' stay out", () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-claude-json-'));
    const real = path.join(base, 'real');
    mkdirSync(real);
    const link = path.join(base, 'link');
    symlinkSync(real, link);
    writeFileSync(
      path.join(base, '.claude.json'),
      JSON.stringify({
        mcpServers: { a: { command: 'a' }, shared: { command: 'user' } },
        projects: {
          [real]: { mcpServers: { b: { type: 'http', url: 'https://b.test/mcp' }, shared: { command: 'local' } } },
          '/x': { mcpServers: { c: { command: 'c' } } },
        },
      }),
    );
    const { servers, warnings } = claudeJsonServers(base, link);
    expect(Object.keys(servers)).toEqual(['a', 'shared', 'b']);
    expect(servers.shared).toMatchObject({ command: 'local' });
    expect(warnings).toEqual([]);
  });

  it('a broken file, a bad entry or a hostile key costs only itself', () => {
    expect(claudeJsonServers(home('{"mcpServers": ').home, '/p').warnings[0]).toMatch(/invalid JSON.*not started$/);
    const hostile = home(
      '{"mcpServers": {"__proto__": {"command": "x"}, "bad": {"command": 3}, "ok": {"command": "y"}}, "projects": 7}',
    );
    const { servers, warnings } = claudeJsonServers(hostile.home, hostile.cwd);
    expect(({} as Record<string, unknown>).command).toBeUndefined();
    expect(servers.ok).toMatchObject({ command: 'y' });
    expect(Object.hasOwn(servers, 'bad')).toBe(false);
    expect(warnings.join('\n')).toMatch(/mcpServers\.bad: .*not started/);
    expect(claudeJsonServers(undefined, '/p')).toEqual({ servers: {}, warnings: [] });
  });
});
