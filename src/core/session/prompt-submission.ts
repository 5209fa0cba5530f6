/**
 * A typed line on its way to the parent's turn: a custom command's body (its `!`cmd` and `@file`
 * carried out under its `allowed-tools`, which hold for the turn too), an MCP server's prompt for
 * `/mcp__<server>__<prompt> args` (as Claude Code offers them), and the images its `@path`s name.
 * Every front end sends the raw line here (`OpenedSession.submitPrompt`).
 */
import type { DirectiveRunner } from '../commands/body-directives.js';
import type { PromptImages } from '../commands/prompt-images.js';
import type { CustomCommand } from '../commands/command-files.js';
import { preparePrompt, promptFor } from '../commands/session-commands.js';
import type { LoopResult } from '../loop/agent-loop.js';
import type { SessionMcp } from '../mcp/session-mcp.js';
import type { ApprovalGate } from '../permissions/approvals.js';
import type { Session, SubmitOptions } from './session.js';

export interface PromptSubmissionParts {
  commands: ReadonlyMap<string, CustomCommand>;
  directives: DirectiveRunner;
  gate: Pick<ApprovalGate, 'allowWhile'>;
  mcp?: Pick<SessionMcp, 'expandPrompt'>;
  images: PromptImages;
  session: Pick<Session, 'submit'>;
}

/** What comes with a typed line. */
export interface PromptOptions extends SubmitOptions {
  /**
   * What the user wrote themselves, where `@shot.png` attaches an image: the line without the
   * files an editor embedded in it (ACP), whose text is a repository's, not the user's. Default:
   * the whole line.
   */
  typed?: string;
}

export type SubmitPrompt = (text: string, signal: AbortSignal, options?: PromptOptions) => Promise<LoopResult>;

export function promptSubmitter(parts: PromptSubmissionParts): SubmitPrompt {
  const { commands, directives, gate, mcp, images, session } = parts;
  return (text, signal, options = {}) =>
    gate.allowWhile(promptFor(text, commands).allow, async () => {
      const fromMcp = mcp && text.trimStart().startsWith('/mcp__') ? await mcp.expandPrompt(text, signal) : undefined;
      const prompt = fromMcp ?? (await preparePrompt(text, commands, directives, signal));
      // Awaited, not returned: the stack of what the turn does then shows the way it came in.
      return await session.submit(prompt, signal, { images: await images(options.typed ?? text, options.images ?? [], signal) });
    });
}
