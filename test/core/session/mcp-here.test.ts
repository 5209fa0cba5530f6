import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordTrustAnswer } from '../../../src/core/config/review-settings.js';
import { mcpServersHere } from '../../../src/core/session/mcp-here.js';
import { reviewSetup } from '../../../src/core/session/open-session.js';

function folder() {
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-mcp-here-'));
  const cwd = path.join(base, 'project');
  const home = path.join(base, 'home');
  mkdirSync(path.join(cwd, '.outrider'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { HOME: home, OUTRIDER_HOME: path.join(home, '.outrider') };
  const write = (file: string, value: unknown) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  };
  return { cwd, env, home, write };
}

const names = (specs: Array<{ name: string; source: string }>) => specs.map((s) => `${s.name} (${s.source})`);

describe('the MCP servers of a folder, without a session', () => {
  it("every source in a session's order; the project's own servers kept out until trusted", () => {
    const f = folder();
    f.write(path.join(f.home, '.claude.json'), { mcpServers: { claude: { command: 'c' } } });
    f.write(path.join(f.env.OUTRIDER_HOME, 'settings.json'), {
      mcpServers: { mine: { command: 'm' }, shared: { command: 's' }, off: { command: 'o', disabled: true } },
    });
    // The project's settings: one entry the same as yours (yours already), one its own.
    f.write(path.join(f.cwd, '.outrider', 'settings.json'), {
      mcpServers: { shared: { command: 's' }, theirs: { command: 't' } },
    });
    f.write(path.join(f.cwd, '.mcp.json'), {
      mcpServers: { mine: { command: 'm' }, repo: { command: 'r' }, asleep: { command: 'z', disabled: true } },
    });
    const setup = { cwd: f.cwd, env: f.env, flags: {} };

    const untrusted = mcpServersHere(setup);
    expect(names(untrusted.specs)).toEqual(['claude (~/.claude.json)', 'shared (settings)', 'mine (.mcp.json)']);
    expect(names(untrusted.untrusted)).toEqual(['theirs (project settings)', 'repo (.mcp.json)']);
    expect(untrusted.trust.stored).toBe('unasked');

    const trusted = mcpServersHere({ ...setup, trustProject: true });
    expect(names(trusted.specs)).toEqual([
      'claude (~/.claude.json)',
      'shared (settings)',
      'theirs (settings)',
      'mine (.mcp.json)',
      'repo (.mcp.json)',
    ]);
    expect(trusted.untrusted).toEqual([]);

    // The user's stored answer counts as it does for a session: no, then yes.
    recordTrustAnswer(reviewSetup(setup), 'untrusted');
    expect(mcpServersHere(setup).trust.stored).toBe('untrusted');
    expect(names(mcpServersHere(setup).untrusted)).toEqual(['theirs (project settings)', 'repo (.mcp.json)']);
    recordTrustAnswer(reviewSetup(setup), 'trusted');
    expect(mcpServersHere(setup).untrusted).toEqual([]);
    expect(names(mcpServersHere(setup).specs)).toContain('repo (.mcp.json)');
  });

  it('--strict-mcp-config: only --mcp-config, and nothing reported as kept out', () => {
    const f = folder();
    f.write(path.join(f.home, '.claude.json'), { mcpServers: { claude: { command: 'c' } } });
    f.write(path.join(f.cwd, '.mcp.json'), { mcpServers: { repo: { command: 'r' } } });
    const here = mcpServersHere({
      cwd: f.cwd,
      env: f.env,
      flags: {},
      strictMcpConfig: true,
      mcpConfig: ['{"mcpServers": {"given": {"type": "http", "url": "https://x.test/mcp"}}}'],
    });
    expect(names(here.specs)).toEqual(['given (--mcp-config)']);
    expect(here.untrusted).toEqual([]);
  });

  it('unreadable sources are warnings; a bad --mcp-config throws as a start would', () => {
    const f = folder();
    f.write(path.join(f.home, '.claude.json'), '{"mcpServers": ');
    f.write(path.join(f.cwd, '.mcp.json'), '{"mcpServers": {"x": {"command": 3}}}');
    const here = mcpServersHere({ cwd: f.cwd, env: f.env, flags: {} });
    expect(here.specs).toEqual([]);
    expect(here.untrusted).toEqual([]);
    expect(here.warnings).toEqual([
      expect.stringMatching(/\.claude\.json: invalid JSON .*not started$/),
      expect.stringMatching(/\.mcp\.json: .*its MCP servers are not started$/),
    ]);
    expect(() => mcpServersHere({ cwd: f.cwd, env: f.env, flags: {}, mcpConfig: ['missing.json'] })).toThrow(
      /--mcp-config missing\.json: no such file/,
    );
  });
});
