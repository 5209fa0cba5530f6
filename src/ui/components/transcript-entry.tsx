import { Box, Text } from 'ink';
import { cutLine } from '../format.js';
import { hangingWrap } from '../text-cells.js';
import { Prose } from './prose.js';
import { Markdown } from '../markdown/markdown.js';
import { DIFF_SHOWN, type DiffLine } from '../state/tool-text.js';
import type { Entry } from '../state/transcript.js';

const DIFF_COLORS: Record<DiffLine['kind'], string | undefined> = {
  '+': 'green',
  '-': 'red',
  '@': 'cyan',
  ' ': undefined,
  note: undefined,
};

/** Diff lines, coloured, indented under their tool line; past `max` lines the rest are counted. */
export function DiffView({ lines, width, max = DIFF_SHOWN }: { lines: readonly DiffLine[]; width: number; max?: number }) {
  const shown = lines.length > max ? lines.slice(0, max - 1) : lines;
  return (
    <Box flexDirection="column">
      {shown.map((line, i) => (
        <Text key={i} color={DIFF_COLORS[line.kind]} dimColor={line.kind === ' ' || line.kind === 'note'} wrap="truncate-end">
          {cutLine(`    ${line.text}`, width)}
        </Text>
      ))}
      {lines.length > shown.length ? <Text dimColor>{`    … ${lines.length - shown.length} more lines`}</Text> : null}
    </Box>
  );
}

/** One finished transcript entry; tool lines are cut to the width, prose wraps. */
export function TranscriptEntry({ entry, width }: { entry: Entry; width: number }) {
  switch (entry.kind) {
    case 'header':
      return (
        <Text wrap="truncate-end">
          <Text bold color="cyan">
            outrider
          </Text>
          <Text dimColor>{cutLine(` · ${entry.model} · ${entry.cwd} · ${entry.mode} mode · /help`, width - 8)}</Text>
        </Text>
      );
    case 'user':
      return (
        <Box marginTop={1}>
          <Prose color="cyan">{`› ${entry.text}`}</Prose>
        </Box>
      );
    case 'wake':
      return (
        <Box marginTop={1}>
          <Text color="magenta">
            {entry.ids.length ? `◆ woke the parent for ${entry.ids.join(', ')}` : '◆ woke the parent for a sub-agent completion'}
          </Text>
        </Box>
      );
    case 'assistant':
      return (
        <Box marginTop={entry.continued ? 1 : 0}>
          <Markdown text={entry.text} width={width} />
        </Box>
      );
    case 'tool':
      if (entry.single && !entry.isError)
        return (
          <Text>
            <Text color="green">● </Text>
            {cutLine(entry.summary, width - 2)}
          </Text>
        );
      return (
        <Box flexDirection="column">
          <Text>
            <Text color={entry.isError ? 'red' : 'green'}>● </Text>
            {cutLine(entry.action, width - 2)}
          </Text>
          <Text color={entry.isError ? 'red' : undefined} dimColor={!entry.isError}>
            {cutLine(`  ⎿ ${entry.summary}`, width)}
          </Text>
          {entry.diff ? <DiffView lines={entry.diff} width={width} /> : null}
        </Box>
      );
    case 'retry':
      return <Text color="yellow">{`↻ ${entry.text}`}</Text>;
    case 'injected':
      return <Prose dimColor>{`↳ to the model: ${entry.text}`}</Prose>;
    case 'notice':
      return entry.level === 'warn' ? (
        <Prose color="yellow">{`! ${entry.text}`}</Prose>
      ) : (
        <Prose dimColor>{`· ${entry.text}`}</Prose>
      );
    case 'jobs':
      return (
        <Box flexDirection="column">
          {entry.lines.map((line, i) => (
            <Text key={i} color="magenta">{`◆ ${line}`}</Text>
          ))}
          {entry.idle ? <Text dimColor>{'  the model hears of this with your next prompt'}</Text> : null}
        </Box>
      );
    case 'end':
      return <Prose color={entry.isError ? 'red' : 'yellow'}>{`■ ${entry.text}`}</Prose>;
    case 'info':
      return <Prose dimColor>{`· ${entry.text}`}</Prose>;
    case 'error':
      return <Prose color="red">{`✗ ${entry.text}`}</Prose>;
    case 'block':
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>{entry.title}</Text>
          {entry.lines.flatMap((line, i) =>
            hangingWrap(line, width).map((row, j) => (
              <Text key={`${i}:${j}`} wrap="truncate-end">
                {row}
              </Text>
            )),
          )}
        </Box>
      );
    default: {
      const unhandled: never = entry;
      return <Text>{String(unhandled)}</Text>;
    }
  }
}
