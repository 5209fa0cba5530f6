import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { KeysProvider, useKeys } from '../../../src/ui/bindings/use-keys.js';
import { settle } from '../harness.js';

/** Records each key as `name:input`, `^` before a Ctrl key, `⌫` for DEL. */
function Listener({ name, log, active = true }: { name: string; log: string[]; active?: boolean }) {
  useKeys(
    (input, key) => {
      log.push(`${name}:${key.ctrl ? '^' : ''}${key.delete ? '⌫' : ''}${input}`);
    },
    { isActive: active },
  );
  return null;
}

async function write(tree: ReactElement, ...chunks: string[]) {
  const rendered = render(tree);
  await settle();
  for (const chunk of chunks) {
    rendered.stdin.write(chunk);
    await settle();
  }
  rendered.unmount();
}

describe('useKeys', () => {
  it('under a KeysProvider, gives each typed key of a chunk to every active listener before the next key', async () => {
    const log: string[] = [];
    await write(
      <KeysProvider>
        <Listener name="a" log={log} />
        <Listener name="off" log={log} active={false} />
        <Listener name="b" log={log} />
      </KeysProvider>,
      'ab\u0003cd',
    );
    expect(log).toEqual(['a:ab', 'b:ab', 'a:^c', 'b:^c', 'a:cd', 'b:cd']);
  });

  it.each([
    ['under a KeysProvider', true],
    ['alone (no provider)', false],
  ])('%s, splits nothing between paste markers, in one read or across reads', async (_, provided) => {
    const log: string[] = [];
    const listener = <Listener name="k" log={log} />;
    await write(
      provided ? <KeysProvider>{listener}</KeysProvider> : listener,
      'x\u0015\u001b[200~a\u0015b',
      'c\u007f\u001b[201~d\u007f',
    );
    expect(log).toEqual(['k:x', 'k:^u', 'k:[200~', 'k:a\u0015b', 'k:c\u007f', 'k:[201~', 'k:d', 'k:⌫']);
  });

  it('a 10,000-key chunk reaches the listener as 10,000 keys', async () => {
    const log: string[] = [];
    await write(
      <KeysProvider>
        <Listener name="k" log={log} />
      </KeysProvider>,
      '\u0017'.repeat(10_000),
    );
    expect(log).toHaveLength(10_000);
    expect(new Set(log)).toEqual(new Set(['k:^w']));
  });
});
