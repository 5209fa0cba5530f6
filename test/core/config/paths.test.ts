import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outriderPaths, projectPaths } from '../../../src/core/config/paths.js';

describe('paths', () => {
  it('puts user state under OUTRIDER_HOME when it is set', () => {
    const home = mkdtempSync(path.join(os.tmpdir(), 'outrider-paths-'));
    const paths = outriderPaths({ OUTRIDER_HOME: home });
    expect(paths).toEqual({
      home,
      userSettings: path.join(home, 'settings.json'),
      trustedFolders: path.join(home, 'trusted-folders.json'),
      sessionsDir: path.join(home, 'sessions'),
      userAgentsDir: path.join(home, 'agents'),
      userAgentsMd: path.join(home, 'AGENTS.md'),
      mcpAuthDir: path.join(home, 'mcp-auth'),
    });
  });

  it('falls back to ~/.outrider of the given HOME', () => {
    expect(outriderPaths({ HOME: '/home/someone' }).home).toBe('/home/someone/.outrider');
    expect(outriderPaths({ HOME: '/home/someone', OUTRIDER_HOME: '  ' }).home).toBe('/home/someone/.outrider');
  });

  it('names the project files under its root', () => {
    expect(projectPaths('/repo')).toEqual({
      settings: '/repo/.outrider/settings.json',
      agentsDir: '/repo/.outrider/agents',
      claudeAgentsDir: '/repo/.claude/agents',
      agentsMd: '/repo/AGENTS.md',
      mcpJson: '/repo/.mcp.json',
    });
  });
});
