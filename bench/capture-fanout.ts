/**
 * The README's text capture of a fan-out: the built binary in a 100×30 tmux pane against the
 * mock provider, the parent starting four sub-agents that are then at work (two streaming
 * their answers, two waiting for the model), and the screen as `tmux capture-pane -p` shows
 * it. `npm run bench -- --capture-fanout` prints it; `-- --capture-fanout --readme` puts it in
 * README.md between its fan-out markers.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RecordedRequest, type Reply, startMockProvider } from '../test/support/mock-provider.js';
import { outriderEnv } from './lib/fixtures.js';
import { REPO } from './lib/processes.js';
import { requireTerminalTools, startPane } from './lib/terminal.js';

const PROMPT = 'How are sessions authenticated, and where is that tested? Use sub-agents.';

interface Child {
  task: string;
  tools: { name: string; args: Record<string, unknown> }[];
  /** After its tools: streams this slowly, or (undefined) waits for the model until the capture is taken. */
  streams?: string;
}

const CHILDREN: Child[] = [
  {
    task: 'Find where sessions are created and checked.',
    tools: [{ name: 'grep', args: { pattern: 'createSession', path: 'src/' } }],
    streams:
      'Sessions are created in src/auth/session.ts by createSession, which signs the id with the key from ' +
      'src/auth/tokens.ts and sets it as an HttpOnly cookie; requireSession reads it back on every request.',
  },
  {
    task: 'Read src/auth/tokens.ts and explain how tokens expire.',
    tools: [{ name: 'read_file', args: { path: 'src/auth/tokens.ts' } }],
  },
  {
    task: 'List the tests that cover authentication.',
    tools: [{ name: 'glob', args: { pattern: 'test/**/*.test.ts' } }],
    streams:
      'Two test files cover it: test/auth/session.test.ts (creating, reading and expiring a session) and ' +
      'test/server.test.ts (a request without a cookie gets a 401).',
  },
  {
    task: 'Check where the server mounts the session middleware.',
    tools: [
      { name: 'read_file', args: { path: 'src/server.ts' } },
      { name: 'grep', args: { pattern: 'requireSession', path: 'src/' } },
    ],
  },
];

const FILES: Record<string, string> = {
  'src/auth/session.ts':
    "import { sign, verify } from './tokens.js';\n\nexport function createSession(userId: string) {\n  return sign({ userId, issued: Date.now() });\n}\n\nexport function requireSession(cookie: string | undefined) {\n  return cookie ? verify(cookie) : undefined;\n}\n",
  'src/auth/tokens.ts':
    "const TTL_MS = 12 * 60 * 60 * 1000;\n\nexport function sign(payload: object): string {\n  return Buffer.from(JSON.stringify({ ...payload, expires: Date.now() + TTL_MS })).toString('base64url');\n}\n\nexport function verify(token: string) {\n  const data = JSON.parse(Buffer.from(token, 'base64url').toString());\n  return data.expires > Date.now() ? data : undefined;\n}\n",
  'src/server.ts':
    "import { requireSession } from './auth/session.js';\n\nexport function handle(request: { cookie?: string }) {\n  return requireSession(request.cookie) ? 200 : 401;\n}\n",
  'test/auth/session.test.ts': '// creating, reading and expiring a session\n',
  'test/server.test.ts': '// a request without a cookie gets a 401\n',
};

/** What a streaming sub-agent says after its first sentence: about a minute more of text. */
const FILLER = 'Nothing else in the tree reads the cookie. '.repeat(50);

const isParent = (request: RecordedRequest) =>
  (request.body?.tools ?? []).some((t: { name: string }) => t.name === 'agent_start');

/** Trailing spaces, and blank lines above and below, off. */
function tidy(screen: string): string {
  return screen
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/^\n+/, '')
    .trimEnd();
}

export async function captureFanOut(): Promise<string> {
  requireTerminalTools();
  // A fixed place: the header shows the working directory.
  const work = path.join(os.tmpdir(), 'outrider-capture');
  rmSync(work, { recursive: true, force: true });
  const project = path.join(work, 'shop-api');
  const home = path.join(work, 'home');
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
  mkdirSync(home);
  const mock = await startMockProvider();
  const held: (() => void)[] = [];
  mock.respond((request): Reply | Promise<Reply> => {
    const messages = request.body?.messages ?? [];
    if (isParent(request)) {
      if (messages.length === 1) {
        return {
          text: "I'll split this across four sub-agents.",
          toolCalls: CHILDREN.map((child) => ({ name: 'agent_start', args: { task: child.task, agent: 'explore' } })),
        };
      }
      return { text: 'Four sub-agents are on it; I will sum up when they report.' };
    }
    const first = JSON.stringify(messages[0]?.content ?? '');
    const child = CHILDREN.find((c) => first.includes(c.task.replace(/"/g, '\\"')));
    if (!child) throw new Error(`a sub-agent request with an unknown task: ${first.slice(0, 200)}`);
    const done = messages.filter((m: { role: string }) => m.role === 'assistant').length;
    if (done < child.tools.length) return { toolCalls: [child.tools[done]!], usage: { input: 2400 + 900 * done } };
    // 12 characters every 300 ms, for longer than the capture takes: the rows show it arriving.
    if (child.streams) return { text: `${child.streams} ${FILLER}`, chunkDelayMs: 300 };
    return new Promise((resolve) => held.push(() => resolve({ text: 'Done.' })));
  });
  const pane = startPane({
    name: 'capture',
    node: process.execPath,
    cwd: project,
    env: outriderEnv(mock, 'anthropic', home),
    // Four in one turn would ask first (agents.approve).
    args: ['--settings', '{"agents":{"approve":"never"}}'],
    log: path.join(work, 'pane.log'),
    width: 100,
    height: 30,
  });
  try {
    await pane.screen(/\/help/);
    pane.type(PROMPT);
    // One screen on which the parent is idle, the two streaming rows show a tail of text
    // and the two waiting ones have done their tools.
    const ready = new RegExp(
      '^' +
        [
          /Four sub-agents are on it/,
          /sub-1 +writing: [^·]{40}/,
          /sub-2 +thinking… · \S+ · 1 tool /,
          /sub-3 +writing: [^·]{40}/,
          /sub-4 +thinking… · \S+ · 2 tools /,
        ]
          .map((r) => `(?=[\\s\\S]*${r.source})`)
          .join(''),
    );
    return tidy(await pane.screen(ready, 60_000));
  } finally {
    pane.close();
    for (const release of held) release();
    await mock.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Replaces the code block between the README's fan-out markers. */
function updateReadme(capture: string): void {
  const file = path.join(REPO, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- fanout:start -->';
  const end = '<!-- fanout:end -->';
  if (!text.includes(start) || !text.includes(end)) throw new Error(`README.md has no ${start} … ${end} markers`);
  const before = text.slice(0, text.indexOf(start) + start.length);
  const after = text.slice(text.indexOf(end));
  writeFileSync(file, `${before}\n\n\`\`\`text\n${capture}\n\`\`\`\n\n${after}`);
}

/** `npm run bench -- --capture-fanout [--readme]`: prints the capture, and with --readme puts it in README.md. */
export async function captureCommand(args: string[]): Promise<void> {
  const capture = await captureFanOut();
  console.log(capture);
  if (args.includes('--readme')) {
    updateReadme(capture);
    console.log('\nREADME.md: fan-out capture updated.');
  }
}
