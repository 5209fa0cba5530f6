import os from 'node:os';
import path from 'node:path';

/** Where outrider keeps the user's own state: settings, sessions, agent definitions. */
export interface OutriderPaths {
  /** `$OUTRIDER_HOME`, else `~/.outrider`. */
  home: string;
  userSettings: string;
  /** The user's answers to "Trust this folder?" (trusted-folders.ts). */
  trustedFolders: string;
  /** One folder per session: `<sessionsDir>/<sessionId>/transcript.jsonl`. */
  sessionsDir: string;
  userAgentsDir: string;
  userAgentsMd: string;
  /** Remote MCP servers' OAuth sign-ins (client registration, tokens): one file per server URL, 0600 in a 0700 folder. */
  mcpAuthDir: string;
}

/** The files of one project, all under its root. */
export interface ProjectPaths {
  settings: string;
  agentsDir: string;
  /** Definitions written for Claude Code, read too so a project needs them only once. */
  claudeAgentsDir: string;
  agentsMd: string;
  /** MCP servers as Claude Code reads them: `.mcp.json` at the root. */
  mcpJson: string;
}

/**
 * The user's state paths. `env` is a parameter so tests point OUTRIDER_HOME at a temp
 * dir without touching process.env (and never the real home).
 */
export function outriderPaths(env: NodeJS.ProcessEnv = process.env): OutriderPaths {
  const override = env.OUTRIDER_HOME?.trim();
  const home = override ? path.resolve(override) : path.join(env.HOME || os.homedir(), '.outrider');
  return {
    home,
    userSettings: path.join(home, 'settings.json'),
    trustedFolders: path.join(home, 'trusted-folders.json'),
    sessionsDir: path.join(home, 'sessions'),
    userAgentsDir: path.join(home, 'agents'),
    userAgentsMd: path.join(home, 'AGENTS.md'),
    mcpAuthDir: path.join(home, 'mcp-auth'),
  };
}

export function projectPaths(root: string): ProjectPaths {
  const absolute = path.resolve(root);
  return {
    settings: path.join(absolute, '.outrider', 'settings.json'),
    agentsDir: path.join(absolute, '.outrider', 'agents'),
    claudeAgentsDir: path.join(absolute, '.claude', 'agents'),
    agentsMd: path.join(absolute, 'AGENTS.md'),
    mcpJson: path.join(absolute, '.mcp.json'),
  };
}
