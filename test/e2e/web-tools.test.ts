import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
const run = (args: string[]) => runCli(args, { cwd: t.project, env: t.env });

let site: http.Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<html><head><title>Release notes</title></head><body><nav>Home · Blog</nav><article><h1>Release notes</h1>` +
        `<h2>Version 2.0</h2><p>${'The parser is twice as fast. '.repeat(20)}</p>` +
        `<h2>Version 1.9</h2><p>${'Fixed a crash on empty files. '.repeat(20)}</p></article></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => site.close(resolve)));

const toolResult = (index: number) => JSON.stringify(t.mock.requests[index]!.body.messages.at(-1).content[0]);

describe('web_fetch and todo_write through the binary', () => {
  it('headless without --yolo, web_fetch is refused before any request, naming the flag', async () => {
    seen.length = 0;
    t.mock.script({ toolCalls: [{ name: 'web_fetch', args: { url: `${base}/notes` } }] }, { text: 'could not fetch' });
    const result = await run(['-p', 'read the notes']);
    expect(result.code).toBe(0);
    expect(toolResult(1)).toContain('web_fetch needs approval');
    expect(toolResult(1)).toContain('rerun with --yolo');
    expect(seen).toEqual([]);
  });

  it('with --yolo it fetches the page as markdown, the prompt keeping the sections asked for, within the settings cap', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify({ webFetchMaxBytes: 100_000, webFetchTimeoutMs: 20_000 }));
    t.mock.script(
      { toolCalls: [{ name: 'web_fetch', args: { url: `${base}/notes`, prompt: 'what changed in version 2.0?' } }] },
      { text: 'twice as fast' },
    );
    const result = await run(['-p', 'what is new?', '--yolo']);
    expect(result.code).toBe(0);
    const content = JSON.parse(toolResult(1)).content as string;
    expect(content).toContain('Title: Release notes');
    expect(content).toContain('## Version 2.0');
    expect(content).not.toContain('Home · Blog');
    expect(content).not.toContain('empty files');
  });

  it('a settings cap too small for the page says so in the result', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify({ webFetchMaxBytes: 200 }));
    t.mock.script({ toolCalls: [{ name: 'web_fetch', args: { url: `${base}/notes` } }] }, { text: 'ok' });
    expect((await run(['-p', 'read', '--yolo'])).code).toBe(0);
    expect(toolResult(1)).toContain('larger than 200 B (setting webFetchMaxBytes)');
  });

  it('todo_write runs in plan mode and its list is on the stream', async () => {
    const todos = [
      { content: 'Look around', status: 'in_progress' },
      { content: 'Write the plan', status: 'pending' },
    ];
    t.mock.script({ toolCalls: [{ name: 'todo_write', args: { todos } }] }, { text: 'planned' });
    const result = await run(['-p', 'plan it', '--permission-mode', 'plan', '--output-format', 'stream-json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.subtype === 'todos')).toMatchObject({ todos });
    expect(lines.find((l) => l.type === 'user')).toMatchObject({ message: { content: [{ is_error: false }] } });
  });
});
