import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Pane, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/**
 * The sandbox as a person at the terminal meets it: the real binary under tmux (test/support/tmux.ts), against the mock provider. Needs bubblewrap, like the other sandbox tests.
 */
const tui = useTui();

/** Starts outrider in a 120×40 pane (PATH as given) and waits until it takes input. */
async function start(options: { path?: string } = {}): Promise<{ pane: Pane; project: string }> {
  const pane = await tui.start(options);
  return { pane, project: pane.project };
}

/** Processes whose command line mentions `needle`. */
function processesWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('the sandbox in the TUI', () => {
  it('Esc stops an auto-allowed command that never ends, inside the sandbox, and the app stays usable', async () => {
    const { pane, project } = await start();
    const file = path.join(project, 'hello.txt');
    tui.mock.script({ toolCalls: [{ name: 'bash', args: { command: `tail -f ${file}` } }] });
    pane.type('follow the file');
    await pane.screen(/● bash tail -f/);
    await until(() => processesWith(`tail\0-f\0${file}`).length === 1, { what: 'tail to run in the sandbox' });
    // It runs in the sandbox's own pid namespace: two pids, the outer one and the inner one.
    const [tail] = processesWith(`tail\0-f\0${file}`);
    const nspid =
      readFileSync(`/proc/${tail}/status`, 'utf8')
        .match(/^NSpid:\s+(.*)$/m)?.[1]
        ?.split(/\s+/) ?? [];
    expect(nspid.length).toBeGreaterThanOrEqual(2);
    pane.key('Escape');
    await pane.screen(/interrupted/);
    await until(() => processesWith(`tail\0-f\0${file}`).length === 0, { what: 'tail to be stopped' });
    tui.mock.script({ text: 'Still here.' });
    pane.type('are you there?');
    await pane.screen(/Still here\./);
  });

  it('says once, when the first command needs the sandbox, that bubblewrap is missing', async () => {
    // node alone on PATH: no bwrap to find.
    const bin = tui.tempDir('outrider-bin-');
    execFileSync('ln', ['-s', process.execPath, path.join(bin, 'node')]);
    const { pane } = await start({ path: bin });
    // No command yet: no probe, nothing to say.
    tui.mock.script({ text: 'Hello.' });
    pane.type('hi');
    expect(await pane.screen(/Hello\./)).not.toMatch(/no OS sandbox/);
    for (const word of ['first', 'second']) {
      tui.mock.script({ toolCalls: [{ name: 'bash', args: { command: `echo ${word}-ran` } }] }, { text: `Ran the ${word}.` });
      pane.type(`run the ${word}`);
      await pane.screen(new RegExp(`Ran the ${word}\\.`));
    }
    const text = await pane.screen(/no OS sandbox/);
    expect(text).toMatch(/no OS sandbox: bwrap was not found on PATH\. Commands judged read-only run on the command check alone/);
    expect(text.match(/no OS sandbox/g)).toHaveLength(1);
  });
});
