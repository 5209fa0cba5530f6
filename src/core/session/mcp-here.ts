import { canonicalJson } from '../platform/canonical-json.js';
import type { McpServerSpec } from '../config/mcp-servers.js';
import { settingsFromReview } from '../config/review-settings.js';
import type { Settings } from '../config/settings.js';
import type { FolderTrust } from '../config/trusted-folders.js';
import { sessionMcpSpecs } from '../mcp/mcp-sources.js';
import { reviewSetup } from './open-session.js';
import type { SessionSetup } from './opened-session.js';

/** What of a session's setup decides its MCP servers (`outrider mcp` takes the same flags). */
export type McpSetup = Pick<
  SessionSetup,
  'cwd' | 'env' | 'flags' | 'trustProject' | 'mcpConfig' | 'strictMcpConfig' | 'settingSources' | 'settingsArg'
>;

/** The MCP servers of a folder, without a session: those it would start, and those its trust keeps out. */
export interface McpServersHere {
  /** What a session opened here starts, in its order. */
  specs: McpServerSpec[];
  /** The project's servers (`.mcp.json`, its settings' `mcpServers`) a trusted folder would start and this one does not. */
  untrusted: McpServerSpec[];
  /** Why `untrusted` is left out: what the user answered for this folder (unasked, untrusted, changed), and where that is kept. */
  trust: { stored: FolderTrust; trustFile: string };
  /** Sources that could not be read (`~/.claude.json`, `.mcp.json`), one line each. */
  warnings: string[];
  /** The effective settings (`mcp.startupTimeoutMs`, …). */
  settings: Settings;
}

/**
 * Reads the settings and sources exactly as openSession does (the folder's trust included: the
 * stored answer or `--trust`), and lists the servers the project holds that trust keeps out.
 * Throws a SettingsError for a bad settings file or `--mcp-config`, as a session's start does.
 */
export function mcpServersHere(setup: McpSetup): McpServersHere {
  const review = reviewSetup(setup);
  const trusted = setup.trustProject === true || review.stored === 'trusted';
  const { settings, ignored, mcpJson } = settingsFromReview(review, { trusted: setup.trustProject });
  const { specs, warnings } = sessionMcpSpecs({
    ...setup,
    settingsServers: settings.mcpServers,
    mcpJsonServers: mcpJson.servers,
  });
  if (review.mcpJson.error) warnings.push(review.mcpJson.error);
  const untrusted: McpServerSpec[] = [];
  if (!trusted && !setup.strictMcpConfig) {
    if (ignored.includes('mcpServers')) {
      const yours = review.files.user.mcpServers ?? {};
      for (const [name, entry] of Object.entries(review.files.project.mcpServers ?? {})) {
        const same = Object.hasOwn(yours, name) && canonicalJson(yours[name]) === canonicalJson(entry);
        if (!same && entry.disabled !== true) untrusted.push({ name, source: 'project settings', entry });
      }
    }
    for (const name of review.mcpJson.error ? [] : review.mcpJson.guarded) {
      const entry = review.mcpJson.servers[name]!;
      if (entry.disabled !== true) untrusted.push({ name, source: '.mcp.json', entry });
    }
  }
  return { specs, untrusted, trust: { stored: review.stored, trustFile: review.trustFile }, warnings, settings };
}
