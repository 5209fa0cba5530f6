import { Box, Text } from 'ink';
import { Lexer, type Token, type Tokens } from 'marked';
import type { ReactNode } from 'react';
import { cells, cutCells } from '../text-cells.js';
import { Prose } from '../components/prose.js';
import { highlightCode, knownLanguage } from './highlight.js';

/**
 * Markdown as Ink components: marked's lexer gives the tokens, and each becomes a box or a
 * styled run of text. Headings, emphasis, inline code, links, lists (nested, numbered,
 * tasks), tables, quotes, rules and fenced code (coloured by highlight.js).
 */
export function Markdown({ text, width }: { text: string; width: number }) {
  return <Blocks tokens={lex(text)} width={Math.max(10, width)} />;
}

function lex(text: string): Token[] {
  try {
    return Lexer.lex(text, { gfm: true });
  } catch {
    return [{ type: 'paragraph', raw: text, text, tokens: [{ type: 'text', raw: text, text }] }];
  }
}

function Blocks({ tokens, width }: { tokens: readonly Token[]; width: number }) {
  // Blank lines between blocks come from the text itself (marked's `space` tokens); none at the ends.
  const shown = trimSpace(tokens);
  return (
    <Box flexDirection="column" width={width}>
      {shown.map((token, i) => (
        <Block key={i} token={token} width={width} />
      ))}
    </Box>
  );
}

function trimSpace(tokens: readonly Token[]): Token[] {
  let start = 0;
  let end = tokens.length;
  while (start < end && tokens[start]!.type === 'space') start += 1;
  while (end > start && tokens[end - 1]!.type === 'space') end -= 1;
  return tokens.slice(start, end);
}

function Block({ token, width }: { token: Token; width: number }): ReactNode {
  const t = token as Tokens.Generic;
  switch (token.type) {
    case 'space':
      return <Text> </Text>;
    case 'heading': {
      const { depth, tokens } = token as Tokens.Heading;
      return (
        <Prose bold underline={depth === 1} color={depth <= 2 ? 'cyan' : undefined}>
          {inline(tokens)}
        </Prose>
      );
    }
    case 'paragraph':
      return <Prose>{inline((token as Tokens.Paragraph).tokens)}</Prose>;
    case 'text':
      return <Prose>{t.tokens ? inline(t.tokens as Token[]) : String(t.text)}</Prose>;
    case 'list':
      return <List list={token as Tokens.List} width={width} />;
    case 'code':
      return <Code code={token as Tokens.Code} width={width} />;
    case 'blockquote':
      return (
        <Box borderStyle="bold" borderColor="gray" borderTop={false} borderBottom={false} borderRight={false} paddingLeft={1}>
          <Blocks tokens={(token as Tokens.Blockquote).tokens} width={width - 2} />
        </Box>
      );
    case 'table':
      return <Table table={token as Tokens.Table} width={width} />;
    case 'hr':
      return <Text dimColor>{'─'.repeat(Math.min(width, 40))}</Text>;
    case 'html':
      return <Text dimColor>{String(t.text).replace(/\n$/, '')}</Text>;
    case 'def':
      return null;
    default:
      return <Text>{String(t.raw).replace(/\n+$/, '')}</Text>;
  }
}

/** Inline tokens as nested Text: bold, italic, code, links (their address after them when it differs). */
function inline(tokens: readonly Token[] | undefined): ReactNode[] {
  return (tokens ?? []).map((token, i) => {
    const t = token as Tokens.Generic;
    switch (token.type) {
      case 'strong':
        return (
          <Text key={i} bold>
            {inline((token as Tokens.Strong).tokens)}
          </Text>
        );
      case 'em':
        return (
          <Text key={i} italic>
            {inline((token as Tokens.Em).tokens)}
          </Text>
        );
      case 'del':
        return (
          <Text key={i} strikethrough>
            {inline((token as Tokens.Del).tokens)}
          </Text>
        );
      case 'codespan':
        return (
          <Text key={i} color="cyan">
            {(token as Tokens.Codespan).text}
          </Text>
        );
      case 'link': {
        const link = token as Tokens.Link;
        const label = plainText(link.tokens);
        return (
          <Text key={i}>
            <Text color="blue" underline>
              {inline(link.tokens)}
            </Text>
            {label === link.href || `mailto:${label}` === link.href ? null : <Text dimColor>{` (${link.href})`}</Text>}
          </Text>
        );
      }
      case 'image':
        return <Text key={i} dimColor>{`[image: ${(token as Tokens.Image).text || (token as Tokens.Image).href}]`}</Text>;
      case 'br':
        return '\n';
      case 'checkbox':
        return (token as Tokens.Checkbox).checked ? '☑ ' : '☐ ';
      case 'text':
        return t.tokens ? <Text key={i}>{inline(t.tokens as Token[])}</Text> : String(t.text);
      case 'escape':
      case 'html':
        return String(t.text);
      default:
        return String(t.raw);
    }
  });
}

/** The text of inline tokens without styles (table cells are measured by it). */
export function plainText(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => {
      const t = token as Tokens.Generic;
      if (t.tokens && token.type !== 'codespan') return plainText(t.tokens as Token[]);
      if (token.type === 'br') return ' ';
      return typeof t.text === 'string' ? t.text : '';
    })
    .join('');
}

function List({ list, width }: { list: Tokens.List; width: number }) {
  const start = typeof list.start === 'number' ? list.start : 1;
  const marks = list.items.map((_, i) => (list.ordered ? `${start + i}. ` : '• '));
  const markWidth = Math.max(...marks.map((m) => m.length));
  return (
    <Box flexDirection="column">
      {list.items.map((item, i) => (
        <Box key={i} flexDirection="row">
          <Box width={markWidth} flexShrink={0}>
            <Text color="cyan">{marks[i]}</Text>
          </Box>
          <Blocks tokens={itemTokens(item)} width={width - markWidth} />
        </Box>
      ))}
    </Box>
  );
}

/** A task item's checkbox joins its first line of text. */
function itemTokens(item: Tokens.ListItem): Token[] {
  const tokens = item.tokens.filter((t) => t.type !== 'checkbox');
  if (!item.task) return tokens;
  const box: Token = { type: 'checkbox', raw: '', checked: Boolean(item.checked) };
  const [first, ...rest] = tokens;
  if (first && (first.type === 'text' || first.type === 'paragraph')) {
    const inner = (first as Tokens.Generic).tokens as Token[] | undefined;
    return [
      { ...first, tokens: [box, ...(inner ?? [{ type: 'text', raw: '', text: (first as Tokens.Text).text }])] } as Token,
      ...rest,
    ];
  }
  return [{ type: 'text', raw: '', text: '', tokens: [box] } as Token, ...tokens];
}

function Code({ code, width }: { code: Tokens.Code; width: number }) {
  const lang = code.lang?.trim().split(/\s+/)[0] || undefined;
  const lines = highlightCode(code.text, lang);
  return (
    <Box flexDirection="column" paddingLeft={2} width={width}>
      {lang && !knownLanguage(lang) ? <Text dimColor>{lang}</Text> : null}
      {lines.map((segments, i) => (
        <Text key={i}>
          {segments.length === 0
            ? ' '
            : segments.map((s, j) => (
                <Text key={j} color={s.color} dimColor={s.dim}>
                  {s.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

/** A table with box-drawing rules; columns shrink (their cells cut) when it is wider than the screen. */
function Table({ table, width }: { table: Tokens.Table; width: number }) {
  const header = table.header.map((cell) => plainText(cell.tokens));
  const rows = table.rows.map((row) => row.map((cell) => plainText(cell.tokens)));
  const widths = columnWidths([header, ...rows], width);
  const line = (cellsOf: string[]) =>
    cellsOf
      .map((cell, i) => {
        const w = widths[i] ?? 0;
        const cut = cutCells(cell, w);
        const pad = w - cells(cut);
        const align = table.align[i];
        if (align === 'right') return ' '.repeat(pad) + cut;
        if (align === 'center') return ' '.repeat(Math.floor(pad / 2)) + cut + ' '.repeat(Math.ceil(pad / 2));
        return cut + ' '.repeat(pad);
      })
      .join(' │ ');
  return (
    <Box flexDirection="column">
      <Text bold>{line(header)}</Text>
      <Text dimColor>{widths.map((w) => '─'.repeat(w)).join('─┼─')}</Text>
      {rows.map((row, i) => (
        <Text key={i}>{line(row)}</Text>
      ))}
    </Box>
  );
}

/** Each column as wide as its widest cell, the widest shrunk first until the table fits. */
function columnWidths(table: string[][], width: number): number[] {
  const count = Math.max(...table.map((row) => row.length));
  const widths = Array.from({ length: count }, (_, i) => Math.max(1, ...table.map((row) => cells(row[i] ?? ''))));
  const room = width - 3 * (count - 1);
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 3) break;
    widths[widest]! -= 1;
  }
  return widths;
}
