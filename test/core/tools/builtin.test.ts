import { describe, expect, it } from 'vitest';
import { builtinTools } from '../../../src/core/tools/builtin.js';
import { toolSchema } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry } from '../../../src/core/tools/registry.js';
import { run, tempDir } from './harness.js';
import { jsGrep } from '../../support/grep-worker.js';

describe('builtinTools', () => {
  it('declares the eight tools in order, with their kinds', () => {
    const tools = builtinTools();
    expect(tools.map((t) => [t.name, t.kind])).toEqual([
      ['read_file', 'read-only'],
      ['write_file', 'mutating'],
      ['edit_file', 'mutating'],
      ['bash', 'mutating'],
      ['grep', 'read-only'],
      ['glob', 'read-only'],
      ['list_dir', 'read-only'],
      ['web_fetch', 'network'],
    ]);
    expect(new ToolRegistry(tools).names()).toHaveLength(8);
  });

  it('keeps every description and schema short: they are paid on every request', () => {
    const schemas = new ToolRegistry(builtinTools()).schemas();
    for (const schema of schemas) {
      expect(Buffer.byteLength(schema.description), schema.name).toBeLessThanOrEqual(400);
    }
    const bytes = Buffer.byteLength(JSON.stringify(schemas));
    expect(bytes).toBeLessThanOrEqual(3_500);
  });

  it('gives each call a label', () => {
    const labels = builtinTools().map((t) => typeof t.label);
    expect(labels.every((l) => l === 'function')).toBe(true);
  });

  it('makes a fresh grep per call, each with its own rg lookup', async () => {
    const dir = tempDir();
    try {
      dir.write('a.txt', 'hello\n');
      const workspace = makeWorkspace(dir.root);
      const lookups: string[] = [];
      const first = builtinTools({ findRg: () => void lookups.push('first'), js: jsGrep });
      const second = builtinTools({ findRg: () => void lookups.push('second'), js: jsGrep });
      expect(first[4]).not.toBe(second[4]);
      expect(toolSchema(first[4])).toEqual(toolSchema(second[4]));
      for (const tools of [first, second, first]) {
        expect((await run(tools[4], { pattern: 'hello' }, { workspace })).content).toBe('a.txt:1:hello');
      }
      expect(lookups).toEqual(['first', 'second']);
    } finally {
      dir.cleanup();
    }
  });
});
