import type { TurnParticipant } from '../loop/turn-participant.js';
import type { AnyTool } from '../tools/define.js';
import type { SessionMcp } from './session-mcp.js';

/** The MCP servers' tools join (or leave) the parent's tools between turns, never within one. */
export function mcpParticipant(mcp: SessionMcp, coreTools: readonly AnyTool[]): TurnParticipant {
  return { name: 'mcp', toolsForTurn: () => mcp.toolsForTurn(coreTools) };
}
