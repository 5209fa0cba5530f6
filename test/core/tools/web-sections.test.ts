import { describe, expect, it } from 'vitest';
import { promptWords, selectSections, splitSections } from '../../../src/core/tools/web-sections.js';

const DOC = [
  'Intro text.',
  '',
  '## Install',
  'npm install x',
  '',
  '```sh',
  '# not a heading',
  '',
  'echo install',
  '```',
  '',
  '## Usage',
  'Call x().',
  '',
  '## License',
  'MIT',
].join('\n');

describe('web_fetch sections', () => {
  it('keeps the words worth matching', () => {
    expect(promptWords('How do I install it on Node 20?')).toEqual(['install', 'node', '20']);
    expect(promptWords('what is the')).toEqual([]);
    expect(promptWords('Configure-Auth, configure-auth')).toEqual(['configure-auth']);
  });

  it('cuts at headings, never inside a code fence', () => {
    const sections = splitSections(DOC);
    expect(sections).toHaveLength(4);
    expect(sections[1]).toContain('# not a heading');
    expect(sections[1]).toContain('echo install');
  });

  it('cuts a page without headings at its paragraphs, a fence kept whole', () => {
    expect(splitSections('one\n\ntwo\n\n```\na\n\nb\n```')).toEqual(['one', 'two', '```\na\n\nb\n```']);
  });

  it('keeps the sections with the most of the words, ties in page order, within the space', () => {
    const picked = selectSections(DOC, 'install usage', 10_000);
    expect(picked).toMatchObject({ matched: 2, total: 4, words: ['install', 'usage'] });
    expect(picked.text.indexOf('## Install')).toBeLessThan(picked.text.indexOf('## Usage'));
    expect(picked.text).not.toContain('MIT');
    const best = selectSections(DOC, 'install license mit', 10_000);
    expect(best).toMatchObject({ matched: 1, text: '## License\nMIT' });
    const tight = selectSections(DOC, 'install usage', 30);
    expect(tight.matched).toBe(1);
    expect(tight.text).toContain('## Install');
  });

  it('gives the whole text back when nothing matches', () => {
    expect(selectSections(DOC, 'kubernetes', 10_000)).toMatchObject({ text: DOC, matched: 0, total: 4 });
  });
});
