import { useInput } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { pastingAfter } from '../../../src/ui/bindings/use-keys.js';
import { PASTE_END, PASTE_START } from '../../../src/ui/state/input-keys.js';
import { type KeyEvent, splitKeys, typedAlone } from '../../../src/ui/state/split-keys.js';
import { settle } from '../harness.js';

function Recorder({ events }: { events: KeyEvent[] }) {
  useInput((input, key) => {
    events.push({ input, key: { ...key } });
  });
  return null;
}

/** What Ink's own useInput hands a handler when `bytes` arrive in one read. */
async function inkEvents(bytes: string): Promise<KeyEvent[]> {
  const events: KeyEvent[] = [];
  const rendered = render(<Recorder events={events} />);
  await settle();
  rendered.stdin.write(bytes);
  await settle();
  rendered.unmount();
  return events;
}

async function inkEvent(bytes: string): Promise<KeyEvent> {
  const events = await inkEvents(bytes);
  expect(events).toHaveLength(1);
  return events[0]!;
}

const plain = typedAlone('ab').key;
const ctrl = (letter: string): KeyEvent => ({ input: letter, key: { ...plain, ctrl: true } });
const text = (input: string): KeyEvent => ({ input, key: plain });
const split = (input: string, pasting = false) => splitKeys(input, plain, { pasting });

describe('typedAlone: the key Ink gives for one sequence arriving alone', () => {
  const alone = [
    ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
    '\u007f',
    'a',
    'A',
    'Z',
    ' ',
    '5',
    'é',
    '😀',
    'xyz',
    'a\nb',
    'ab\r',
  ];
  it.each(alone.map((s) => [JSON.stringify(s), s]))('%s matches Ink 6', async (_, sequence) => {
    expect(typedAlone(sequence)).toEqual(await inkEvent(sequence));
  });
});

describe('splitKeys', () => {
  it.each([
    ['Ctrl+U then text', '\u0015xyz', [ctrl('u'), text('xyz')]],
    [
      'text then Backspace (DEL, which Ink names delete)',
      'ab\u007f',
      [text('ab'), { input: '', key: { ...plain, delete: true } }],
    ],
    ['text then Ctrl+W', 'hi there\u0017', [text('hi there'), ctrl('w')]],
    [
      'Ctrl+A then a capital (shift, as Ink reports a lone capital)',
      '\u0001X',
      [ctrl('a'), { input: 'X', key: { ...plain, shift: true } }],
    ],
    ['BS is backspace', 'a\bb', [text('a'), { input: '', key: { ...plain, backspace: true } }, text('b')]],
    ['NUL is Ink’s Ctrl+`', 'a\u0000', [text('a'), ctrl('`')]],
    ['Ctrl+C between text', 'abc\u0003xyz', [text('abc'), ctrl('c'), text('xyz')]],
    ['two control keys in a row', '\u0001\u0005', [ctrl('a'), ctrl('e')]],
    [
      'a raw ESC inside text (Ink never sends one) is the Escape key',
      'a\u001bb',
      [text('a'), { input: '', key: { ...plain, escape: true, meta: true } }, text('b')],
    ],
    ['Ctrl+\\ is a key of its own, its byte as input (as Ink)', 'a\u001cb', [text('a'), text('\u001c'), text('b')]],
    ['astral characters stay whole', '😀\u0015😀', [text('😀'), ctrl('u'), text('😀')]],
    ['text then Enter after a control key', '\u0015go\r', [ctrl('u'), text('go\r')]],
  ])('%s', (_, chunk, expected) => {
    expect(split(chunk)).toEqual(expected);
  });

  it.each([
    ['text and Enter (the app inserts, then sends)', 'hello\r'],
    ['a paste without bracketed paste: its lines stay lines', 'one\ntwo\r\nthree'],
    ['tabs in text', 'a\tb'],
    ['plain text', 'hello world'],
    ['a lone Ctrl+U as Ink gives it', 'u'],
  ])('leaves %s as one event', (_, chunk) => {
    expect(split(chunk)).toEqual([{ input: chunk, key: plain }]);
  });

  it('leaves events Ink parsed as a key alone as they are', () => {
    const lone: KeyEvent[] = [
      { input: '', key: { ...plain, escape: true, meta: true } },
      { input: 'u', key: { ...plain, ctrl: true } },
      { input: '', key: { ...plain, upArrow: true } },
      { input: 'b', key: { ...plain, meta: true } },
      { input: PASTE_START, key: plain },
      // Alt+Ctrl+U: Ink strips the ESC and hands over the raw byte; one key, not split.
      { input: '\u0015', key: plain },
    ];
    for (const event of lone) expect(splitKeys(event.input, event.key, { pasting: false })).toEqual([event]);
  });

  it('splits nothing inside a bracketed paste: pasted control characters go in as they came', () => {
    expect(split('foo\u0015bar\u007f', true)).toEqual([text('foo\u0015bar\u007f')]);
  });

  it('follows paste markers across events', () => {
    const events = ['ab\u0015', PASTE_START, 'x\u0015y\r\nz', PASTE_END, 'c\u0017'];
    let pasting = false;
    const keys: KeyEvent[] = [];
    for (const input of events) {
      keys.push(...splitKeys(input, plain, { pasting }));
      pasting = pastingAfter(input, pasting);
    }
    expect(keys).toEqual([
      text('ab'),
      ctrl('u'),
      text(PASTE_START),
      text('x\u0015y\r\nz'),
      text(PASTE_END),
      text('c'),
      ctrl('w'),
    ]);
    expect(pasting).toBe(false);
  });

  it('splits 10,000 control characters into 10,000 keys', () => {
    const keys = split('\u0003'.repeat(10_000));
    expect(keys).toHaveLength(10_000);
    expect(keys.every((k) => k.input === 'c' && k.key.ctrl)).toBe(true);
  });

  it('splits a long mixed chunk into exactly its keys, nothing lost', () => {
    const chunk = 'ab\u0015'.repeat(5_000);
    const keys = split(chunk);
    expect(keys).toHaveLength(10_000);
    expect(keys.map((k) => (k.key.ctrl ? `^${k.input}` : k.input)).join('')).toBe('ab^u'.repeat(5_000));
  });

  it.each([
    ['ab\u0015xyz\u007f\u0001Q\u0000 \u0017', ['ab', '\u0015', 'xyz', '\u007f', '\u0001', 'Q', '\u0000', ' ', '\u0017']],
    ['\u0003\u0003go\r', ['\u0003', '\u0003', 'go\r']],
  ])('splits %j as Ink gives its keys one read each', async (chunk, pieces) => {
    const whole = await inkEvent(chunk);
    const one = [];
    for (const piece of pieces) one.push(await inkEvent(piece));
    expect(splitKeys(whole.input, whole.key, { pasting: false })).toEqual(one);
  });

  it('Ink hands keys that arrive in one read to useInput as one event (the defect this works around)', async () => {
    expect(await inkEvents('abc\u0015xyz')).toHaveLength(1);
  });
});
