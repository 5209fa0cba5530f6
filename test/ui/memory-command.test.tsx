import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseSlashCommand } from '../../src/ui/slash-commands.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('/memory', () => {
  it('parses', () => {
    expect(parseSlashCommand('/memory')).toEqual({ name: 'memory' });
    expect(parseSlashCommand(' /MEMORY ')).toEqual({ name: 'memory' });
  });

  it('lists the instruction files in the prompt with their sizes, importers and cuts', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-memory-'));
    mkdirSync(path.join(dir, '.git'));
    writeFileSync(path.join(dir, 'CLAUDE.md'), 'Use pnpm. See @docs/big.md\n');
    mkdirSync(path.join(dir, 'docs'));
    writeFileSync(path.join(dir, 'docs', 'big.md'), 'x'.repeat(40 * 1024));
    session = await openTestSession([], { dir });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/memory', KEY.enter);
    const text = await until(() => frame(rendered).includes('Memory') && frame(rendered).replace(/\n */g, ' '));
    expect(text).toContain(`${path.join(dir, 'CLAUDE.md')}  27 B `);
    // The frame wraps at the terminal width (rows after the first hang under the description):
    // compare with each line break and the indent after it read as one space.
    expect(text).toContain(`${path.join(dir, 'docs', 'big.md')}  40.0 KB · imported by ${path.join(dir, 'CLAUDE.md')}`);
    expect(text).toContain('· cut at 32.0 KB of 40.0 KB: one instruction file is limited to 32.0 KB');
  });

  it('says where it looks when there are none', async () => {
    session = await openTestSession([]);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/memory', KEY.enter);
    await until(() => frame(rendered).includes('no instruction files: AGENTS.md (or CLAUDE.md)'));
  });
});
