/** The JavaScript grep in its worker: stopped by abort or deadline, even inside a runaway regex. */
import { truncateSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { JS_GREP_DEADLINE_MS } from '../../../src/core/tools/grep-js.js';
import { grepTool } from '../../../src/core/tools/grep.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { grepWorker } from '../../support/grep-worker.js';
import { until } from '../../support/until.js';
import { type TempDir, run, tempDir } from './harness.js';

/** `(a+)+$` against this backtracks 2^40 times before it fails. */
const EVIL_LINE = `${'a'.repeat(40)}!`;
const EVIL = '(a+)+$';

let dir: TempDir;
let workspace: Workspace;
beforeAll(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
  dir.write('evil/only.txt', `${EVIL_LINE}\n`);
  // Walked in name order: the banana matches at once, then the search is stuck in zz.txt.
  dir.write('mixed/a.txt', 'banana\n');
  dir.write('mixed/zz.txt', `${EVIL_LINE}\n`);
  dir.write('big/small.txt', 'needle small\n');
  // Sparse: 21 MB on paper, nothing on disk.
  truncateSync(dir.write('big/huge.log', ''), 21 * 1024 * 1024);
});
afterAll(() => dir.cleanup());

const noRg = () => undefined;

describe('the JavaScript grep', () => {
  it('stops a runaway regex at its deadline and says why', async () => {
    const clock = new FakeClock();
    const pending = run(
      grepTool({ findRg: noRg, js: { worker: grepWorker, timers: clock } }),
      { pattern: EVIL, path: 'evil' },
      { workspace },
    );
    await until(() => clock.pending() === 1, { what: 'the deadline to be set' });
    clock.advance(JS_GREP_DEADLINE_MS - 1);
    await settle();
    expect(clock.pending()).toBe(1);
    clock.advance(1);
    const out = await pending;
    expect(out.isError).toBeUndefined();
    expect(out.content).toBe(
      'No matches for (a+)+$ in evil\n[the search was stopped after 30 s. A pattern with nested repetition such as (a+)+ can run for ever in the JavaScript search: simplify it, or narrow path or glob (installing ripgrep avoids this).]',
    );
  });

  it('keeps the results found before the deadline', async () => {
    const clock = new FakeClock();
    let found = 0;
    const js = { worker: grepWorker, timers: clock, onProgress: (total: number) => (found = total) };
    const pending = run(grepTool({ findRg: noRg, js }), { pattern: EVIL, path: 'mixed' }, { workspace });
    await until(() => found === 1, { what: 'the first file’s match' });
    clock.advance(JS_GREP_DEADLINE_MS);
    const out = await pending;
    expect(out.content.split('\n')).toEqual([
      'mixed/a.txt:1:banana',
      expect.stringMatching(/^\[the search was stopped after 30 s; the 1 result\(s\) above are those found until then\. /),
    ]);
  });

  it('obeys the abort signal while the regex runs, and ends with the worker gone', async () => {
    const controller = new AbortController();
    const pending = run(
      grepTool({ findRg: noRg, js: { worker: grepWorker } }),
      { pattern: EVIL, path: 'evil' },
      { workspace, signal: controller.signal },
    );
    await settle();
    controller.abort();
    expect(await pending).toEqual({ content: 'grep was interrupted', isError: true });
  });

  it('says which files over 20 MB it did not search', async () => {
    const grep = grepTool({ findRg: noRg, js: { worker: grepWorker } });
    const found = await run(grep, { pattern: 'needle', path: 'big' }, { workspace });
    expect(found.content).toBe(
      'big/small.txt:1:needle small\n[1 file larger than 20 MB not searched (the JavaScript search skips them; ripgrep does not): big/huge.log (21 MB).]',
    );
    const none = await run(grep, { pattern: 'absent', path: 'big' }, { workspace });
    expect(none.content).toMatch(
      /^No matches for absent in big\n\[1 file larger than 20 MB not searched .*: big\/huge\.log \(21 MB\)\.\]$/,
    );
  });

  it('names a missing worker script in one line', async () => {
    const worker = new URL('file:///nonexistent/outrider/grep-worker.js');
    const out = await run(grepTool({ findRg: noRg, js: { worker } }), { pattern: 'needle' }, { workspace });
    expect(out).toEqual({
      content:
        'The JavaScript search could not run: its worker script /nonexistent/outrider/grep-worker.js is missing; install ripgrep (rg) or reinstall outrider.',
      isError: true,
    });
  });

  it('answers an invalid regex without starting a worker', async () => {
    const worker = new URL('file:///nonexistent/outrider/grep-worker.js');
    const out = await run(grepTool({ findRg: noRg, js: { worker } }), { pattern: 'a(' }, { workspace });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^Invalid regex a\(: /);
  });
});
