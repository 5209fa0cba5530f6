import { describe, expect, it } from 'vitest';
import { mcpToolName, sanitizeNamePart } from '../../../src/core/mcp/names.js';
import { resultText } from '../../../src/core/mcp/result-text.js';

describe('MCP tool names', () => {
  it('are mcp__<server>__<tool>, with what providers refuse replaced', () => {
    expect(mcpToolName('github', 'search_issues')).toBe('mcp__github__search_issues');
    expect(mcpToolName('my.server', 'get sum/v2')).toBe('mcp__my_server__get_sum_v2');
    expect(sanitizeNamePart('')).toBe('_');
  });

  it('stay within 64 characters and apart from each other', () => {
    const long = mcpToolName('server', 'a'.repeat(100));
    expect(long).toMatch(/^mcp__server__a+_[0-9a-f]{8}$/);
    expect(long).toHaveLength(64);
    expect(mcpToolName('server', 'b'.repeat(100))).not.toBe(long);
    const taken = new Set(['mcp__a_b__t']);
    const second = mcpToolName('a.b', 't', (n) => taken.has(n));
    expect(second).toMatch(/^mcp__a_b__t_[0-9a-f]{8}$/);
    expect(second).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe('MCP results as text', () => {
  it('keeps text, names images and audio by type and size, keeps embedded text resources', () => {
    expect(
      resultText({
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AAE=' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
      }),
    ).toBe(
      'one\n[image: image/png, 5 bytes]\n[audio: audio/wav, 3 bytes]\n[resource: file:///a.txt]\ninside\n[resource: file:///b.bin, application/octet-stream, 2 bytes]\n[resource link: c file:///c]',
    );
  });

  it('gives structured content as JSON when there is no content, and the old toolResult too', () => {
    expect(resultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
    expect(resultText({ toolResult: 'x' })).toBe('"x"');
    expect(resultText({ content: [] })).toBe('');
  });
});
