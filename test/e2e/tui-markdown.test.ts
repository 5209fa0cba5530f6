import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { loadRecorder, loadedDistChunks } from '../support/load-recorder.js';
import { ESM_RUNNER, REPO, runCli } from '../support/run-cli.js';
import { useTui } from '../support/tmux.js';

/** Markdown: rendered by the TUI, never loaded by the headless path. */
const t = useMockProject();
const tui = useTui();

const markdownLibraries = [
  { what: 'marked', marker: /input parameter is undefined or null/ },
  { what: 'highlight.js', marker: /Could not find the language/ },
];

describe('Markdown', () => {
  it('is loaded only by the TUI: a headless run loads neither marked nor highlight.js', async () => {
    // The markers are right: the bundle carries both libraries somewhere.
    const dist = path.join(REPO, 'dist');
    const all = readdirSync(dist)
      .filter((file) => file.endsWith('.js'))
      .map((file) => readFileSync(path.join(dist, file), 'utf8'));
    for (const { marker } of markdownLibraries) expect(all.some((text) => marker.test(text))).toBe(true);

    // The headless CommonJS bundle, which runs -p, leaves both out altogether; the ES module one loads them lazily.
    const headlessBundle = readFileSync(path.join(dist, 'headless.cjs'), 'utf8');
    for (const { marker } of markdownLibraries) expect(headlessBundle).not.toMatch(marker);

    const recorder = loadRecorder();
    t.mock.script({ text: '# Title\n\n**bold**' });
    const result = await runCli(['-p', 'hi'], {
      cwd: t.project,
      env: { ...t.env, NODE_OPTIONS: recorder.nodeOptions },
      entry: ESM_RUNNER,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('**bold**');
    const chunks = loadedDistChunks(recorder.log);
    expect(chunks.map((c) => c.file)).toContain('cli.js');
    for (const { what, marker } of markdownLibraries) {
      const culprit = chunks.find((c) => marker.test(c.text));
      expect(culprit, `a headless run loaded ${what} (${culprit?.file})`).toBeUndefined();
    }
  });

  it('renders the answer in the terminal: headings, emphasis, lists, tables and code without their markup', async () => {
    const pane = await tui.start();
    tui.mock.script({
      text: [
        '## The plan',
        '',
        'Read **two** files, then `edit` one.',
        '',
        '1. first step',
        '2. second step',
        '',
        '| file | lines |',
        '|---|--:|',
        '| a.ts | 12 |',
        '',
        '```ts',
        'const answer = 42;',
        '```',
        '',
        'Done.',
      ].join('\n'),
      chunkDelayMs: 20,
    });
    pane.type('plan it');
    const text = await pane.screen(/^Done\.$/m);
    expect(text).toMatch(/^The plan$/m);
    expect(text).toContain('Read two files, then edit one.');
    expect(text).toMatch(/^1\. first step\n2\. second step$/m);
    expect(text).toMatch(/^file │ lines$/m);
    expect(text).toMatch(/^a\.ts │ {4}12$/m);
    expect(text).toMatch(/^ {2}const answer = 42;$/m);
    expect(text).not.toContain('**');
    expect(text).not.toContain('```');
    expect(text).not.toMatch(/^## /m);
  });
});
