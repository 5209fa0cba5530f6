import type { Message } from '../../core/index.js';
import { historyEntries } from './history-entries.js';

/** The facts /status lists, each on its own line. */
export interface StatusFacts {
  version: string;
  model: string;
  provider: string;
  baseURL?: string;
  mode: string;
  sandbox: string;
  /** `mcp 2/3`, or empty without servers. */
  mcp: string;
  sessionId: string;
  folder: string;
  cwd: string;
}

/** /status: what runs where, as Claude Code's /status lists it. */
export function statusLines(facts: StatusFacts): string[] {
  const rows: [string, string][] = [
    ['version', `outrider ${facts.version} · Node ${process.versions.node}`],
    ['model', facts.model],
    ['provider', facts.provider],
    ['base URL', facts.baseURL ?? '(the provider’s default)'],
    ['mode', `${facts.mode} (Shift+Tab changes it)`],
    ['sandbox', facts.sandbox],
    ['MCP', facts.mcp ? facts.mcp.replace(/^mcp /, '') + ' servers up' : 'no servers'],
    ['session', facts.sessionId],
    ['stored in', facts.folder],
    ['directory', facts.cwd],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
}

/**
 * /export: the conversation as Markdown, as the transcript shows it: prompts, answers, each
 * tool call with what it returned (in words for people), sub-agents' ends and how turns ended.
 */
export function conversationMarkdown(messages: readonly Message[], options: { sessionId: string; root?: string }): string {
  const out: string[] = [`# outrider session ${options.sessionId}`, ''];
  const entries = historyEntries(messages, { root: options.root, max: Number.MAX_SAFE_INTEGER });
  for (const entry of entries) {
    switch (entry.kind) {
      case 'user':
        out.push('## You', '', entry.text, '');
        break;
      case 'assistant':
        out.push(entry.text, '');
        break;
      case 'tool':
        out.push(
          entry.single ? `- ${entry.summary}` : `- \`${entry.action}\` → ${entry.isError ? '**error** ' : ''}${entry.summary}`,
          '',
        );
        break;
      case 'jobs':
        out.push(...entry.lines.map((line) => `> ◆ ${line}`), '');
        break;
      case 'wake':
        out.push(`> ◆ woke the agent for ${entry.ids.join(', ')}`, '');
        break;
      case 'injected':
      case 'info':
        out.push(`> ${entry.text}`, '');
        break;
      default:
        break;
    }
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

/**
 * /diff: what the agent's own edits changed this session, file by file, from its write_file and
 * edit_file results (their diffs); what bash commands or sub-agents changed is not among them.
 */
export function changeLines(messages: readonly Message[], root?: string): string[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const message of messages)
    for (const block of message.content)
      if (block.type === 'tool_result') results.set(block.toolUseId, { content: block.content, isError: block.isError ?? false });
  const files = new Map<string, string[]>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== 'tool_use' || (block.name !== 'write_file' && block.name !== 'edit_file')) continue;
      const result = results.get(block.id);
      const file = (block.input as { path?: unknown } | undefined)?.path;
      if (!result || result.isError || typeof file !== 'string') continue;
      const shown = root && file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
      const [first = '', ...diff] = result.content.split('\n');
      const lines = files.get(shown) ?? [];
      lines.push(`    ${first}`, ...diff.filter((line) => line.trim() !== '').map((line) => `      ${line}`));
      files.set(shown, lines);
    }
  }
  if (files.size === 0) return ['The agent has not written or edited a file in this session.'];
  return [...files].flatMap(([file, lines]) => [`  ${file}`, ...lines]);
}
