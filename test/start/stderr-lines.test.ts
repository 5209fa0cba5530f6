import { describe, expect, it } from 'vitest';
import { colorLevel, stderrLines } from '../../src/start/stderr-lines.js';

describe('stderr lines', () => {
  it.each([
    [{}, true, 1],
    [{}, false, 0],
    [{ NO_COLOR: '1' }, true, 0],
    [{ NO_COLOR: '' }, true, 1],
    [{ FORCE_COLOR: '1' }, false, 1],
    [{ FORCE_COLOR: '3' }, false, 3],
    [{ FORCE_COLOR: '0' }, true, 0],
    [{ FORCE_COLOR: 'false' }, true, 0],
    [{ FORCE_COLOR: '' }, false, 1],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, 1],
  ] as const)('env %j on a terminal=%s gives colour level %i', (env, isTTY, level) => {
    expect(colorLevel(env, isTTY)).toBe(level);
  });

  it('colours the prefix only, and writes plain text when colour is off', () => {
    expect(stderrLines({}, { isTTY: false }).error('bad flag')).toBe('outrider: bad flag\n');
    const coloured = stderrLines({ FORCE_COLOR: '1' }, { isTTY: false }).warn('careful');
    expect(coloured).toBe('\u001b[33moutrider:\u001b[39m careful\n');
  });
});
