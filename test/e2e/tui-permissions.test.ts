import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';

/** /permissions explains every rule in force, as Claude Code's does, and the session's "allow always" answers (issue 23). */
const tui = useTui();

describe('/permissions', () => {
  it('lists the rules from settings, each with what it covers and what it does', async () => {
    const pane = await tui.start({
      settings: { permissions: { deny: ['Read(./secrets/**)'], ask: ['Bash(git push:*)'], allow: ['Bash(git diff:*)'] } },
    });
    pane.type('/permissions');
    const shown = await pane.screen(/No "allow always" answers in this session yet/);
    expect(shown).toMatch(/Rules from settings and flags \(deny wins, then ask, then allow\):/);
    // The deny rule's line wraps: what it covers, then what it does.
    expect(shown).toMatch(/^ +deny Read\(\.\/secrets\/\*\*\): read_file, grep, glob, list_dir: paths matching/m);
    expect(shown).toMatch(/\(and bash commands naming them, for deny and ask\) \(refused\)$/m);
    expect(shown).toMatch(/^ +ask Bash\(git push:\*\): .+ \(asks every time\)$/m);
    expect(shown).toMatch(/^ +allow Bash\(git diff:\*\): .+ \(runs without asking\)$/m);
    // Deny first, then ask, then allow.
    expect(shown.indexOf('deny Read')).toBeLessThan(shown.indexOf('ask Bash'));
    expect(shown.indexOf('ask Bash')).toBeLessThan(shown.indexOf('allow Bash'));
  });
});
