import { describe, expect, it } from 'vitest';
import { terminalLine } from '../../../src/core/platform/terminal-line.js';

const ESC = '\u001b';
const RESET = `${ESC}[0m`;

describe('terminalLine', () => {
  it('keeps the first line, and its colours, reset at its end', () => {
    expect(terminalLine('plain\nsecond line\n')).toBe('plain');
    expect(terminalLine(`${ESC}[1;32mgreen${ESC}[0m and ${ESC}[38;5;208morange${ESC}[39m\nnext`)).toBe(
      `${ESC}[1;32mgreen${ESC}[0m and ${ESC}[38;5;208morange${ESC}[39m${RESET}`,
    );
    // 24-bit colour with colon separators is SGR too.
    expect(terminalLine(`${ESC}[38:2::255:0:0mred`)).toBe(`${ESC}[38:2::255:0:0mred${RESET}`);
  });

  it('takes a line without a newline, an empty output, and CRLF or a lone CR as line ends', () => {
    expect(terminalLine('no newline at all')).toBe('no newline at all');
    expect(terminalLine('')).toBe('');
    expect(terminalLine('\nthe second line is not shown')).toBe('');
    expect(terminalLine('windows\r\nnext')).toBe('windows');
    expect(terminalLine('shown\rthen overwritten')).toBe('shown');
    expect(terminalLine('a\u2028b')).toBe('a');
  });

  it('drops every escape sequence that is not a style: cursor moves, clears, modes, resets', () => {
    const hostile = [
      `${ESC}[2J`, // clear the screen
      `${ESC}[H`, // cursor home
      `${ESC}[10;20H`, // cursor to a place
      `${ESC}[3A`, // cursor up (redraws over the app)
      `${ESC}[?1049h`, // the alternate screen
      `${ESC}[?25l`, // hide the cursor
      `${ESC}[6n`, // asks the terminal to answer on stdin
      `${ESC}[>0c`, // device attributes
      `${ESC}c`, // full reset
      `${ESC}7${ESC}8`, // save / restore the cursor
      `${ESC}(0`, // line-drawing charset
      `${ESC}[1;31;m`.replace('m', 'q'), // a CSI with another final
      `${ESC}[31"p`, // an SGR-looking CSI with an intermediate is not SGR
    ].join('');
    expect(terminalLine(`a${hostile}b`)).toBe('ab');
  });

  it('drops OSC, DCS, SOS, PM and APC strings whole, however they end (BEL, ST, C1 ST, or never)', () => {
    expect(terminalLine(`${ESC}]0;pwned title\u0007ok`)).toBe('ok');
    expect(terminalLine(`${ESC}]52;c;ZXZpbA==${ESC}\\ok`)).toBe('ok'); // write the clipboard
    expect(terminalLine(`${ESC}]8;;https://evil.example${ESC}\\link${ESC}]8;;${ESC}\\ text`)).toBe('link text');
    expect(terminalLine(`${ESC}P+q544e${ESC}\\ok`)).toBe('ok');
    expect(terminalLine(`${ESC}_apc${ESC}\\${ESC}^pm${ESC}\\${ESC}Xsos${ESC}\\ok`)).toBe('ok');
    expect(terminalLine(`${ESC}]9;notify\u009cok`)).toBe('ok');
    // Unterminated: nothing after it is shown, the line breaks inside it included.
    expect(terminalLine(`before${ESC}]0;title never ends\nafter`)).toBe('before');
    expect(terminalLine(`before${ESC}[12`)).toBe('before');
    expect(terminalLine(`before${ESC}`)).toBe('before');
  });

  it('drops 8-bit controls (C1 CSI and OSC), other control characters and DEL; a tab is a space', () => {
    expect(terminalLine('a\u009b2Jb')).toBe('ab');
    expect(terminalLine('a\u009d0;title\u0007b')).toBe('ab');
    expect(terminalLine('a\u0000b\u0007c\u0008d\u007fe\u0085f')).toBe('abcde');
    expect(terminalLine('a\tb')).toBe('a b');
  });

  it('drops what would reorder or hide the text (bidi overrides, zero-width marks), keeping emoji joiners', () => {
    expect(terminalLine('main\u202e\u2066txt.exe\u2069\u200b')).toBe('maintxt.exe');
    expect(terminalLine('👩\u200d💻 dev')).toBe('👩\u200d💻 dev');
    expect(terminalLine('lone \ud800 surrogate')).toBe('lone  surrogate');
  });

  it('never lets an oversized style through, and drops styles altogether when asked', () => {
    expect(terminalLine(`${ESC}[${'1;'.repeat(40)}1mx`)).toBe('x');
    expect(terminalLine(`${ESC}[31mred${ESC}[0m`, { keepStyle: false })).toBe('red');
  });

  it('cuts a megabyte line to its first characters', () => {
    const line = terminalLine(`${ESC}[31m${'x'.repeat(1024 * 1024)}`);
    expect(line).toBe(`${ESC}[31m${'x'.repeat(1000)}${RESET}`);
    expect(terminalLine('y'.repeat(50), { maxChars: 10 })).toBe('y'.repeat(10));
  });

  it('takes binary output decoded as UTF-8: replacement characters, no controls', () => {
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a, 0x41, 0x9b, 0x0a, 0x42]).toString('utf8');
    expect(terminalLine(binary)).toBe('\ufffd\ufffdA\ufffd');
  });
});
