import { writeFileSync } from 'node:fs';
import { safeText } from '../../core/index.js';
import path from 'node:path';
import packageJson from '../../../package.json' with { type: 'json' };
import { type McpState, mcpSegment } from '../state/mcp.js';
import { changeLines, conversationMarkdown, statusLines } from '../state/session-report.js';
import type { EntryBody } from '../state/transcript.js';
import type { UiSession } from '../ui-session.js';

/** /status's lines for this session. */
export function statusOf(session: UiSession, mcp: McpState): string[] {
  const about = session.about?.();
  return statusLines({
    version: packageJson.version,
    model: session.model,
    provider: about?.provider ?? 'unknown',
    ...(about?.baseURL ? { baseURL: about.baseURL } : {}),
    mode: session.permissionMode(),
    sandbox: about?.sandbox ?? 'unknown',
    mcp: mcpSegment(mcp),
    sessionId: session.sessionId,
    folder: about?.folder ?? 'unknown',
    cwd: session.root,
  });
}

/** /export [file]: the conversation written as Markdown; what the transcript says about it. */
export function exportConversation(session: UiSession, file?: string): EntryBody {
  const messages = session.messages?.() ?? session.earlier;
  const target = path.resolve(session.root, file ?? `outrider-${session.sessionId.slice(0, 8)}.md`);
  try {
    writeFileSync(target, conversationMarkdown(messages, { sessionId: session.sessionId, root: session.root }));
  } catch (error) {
    return { kind: 'error', text: `could not write ${target}: ${(error as Error).message}; give another path: /export <file>` };
  }
  return { kind: 'info', text: `exported ${messages.length} messages to ${target}` };
}

/** /diff's lines: the agent's edits this session, file by file. */
export function diffOf(session: UiSession): string[] {
  return changeLines(session.messages?.() ?? session.earlier, session.root);
}

/** /permissions: the "allow always" answers, numbered; with `remove`, the one forgotten. */
export function permissionsCommand(session: UiSession, remove?: number): EntryBody {
  const gate = session.permissions;
  if (!gate) return { kind: 'error', text: 'permissions are not available here' };
  const { tools, commands } = gate.remembered();
  const rules = [
    ...tools.map((value) => ({ kind: 'tool' as const, value, text: `${value} (every call)` })),
    ...commands.map((value) => ({ kind: 'command' as const, value, text: `bash: ${value}` })),
  ];
  if (remove !== undefined) {
    const rule = rules[remove - 1];
    if (!rule)
      return { kind: 'error', text: `no rule ${remove}: /permissions lists ${rules.length ? `1–${rules.length}` : 'none yet'}` };
    gate.forget(rule.kind, rule.value);
    return { kind: 'info', text: `removed: ${rule.text}; it asks again` };
  }
  const inForce = gate.rules?.() ?? [];
  const settingsLines = inForce.length
    ? ['Rules from settings and flags (deny wins, then ask, then allow):', ...inForce.map((line) => `  ${safeText(line)}`)]
    : ['No rules from settings or flags (permissions.allow/ask/deny, .claude/settings.json, --allowedTools).'];
  const answered = rules.length
    ? [
        'Allowed always in this session:',
        ...rules.map((rule, i) => `  ${i + 1}. ${rule.text}`),
        'Remove one with /permissions remove <n>.',
      ]
    : ['No "allow always" answers in this session yet (a answers one when asked).'];
  return { kind: 'block', title: 'Permissions', lines: [...settingsLines, ...answered] };
}
