import { Text } from 'ink';
import type { PermissionMode } from '../../core/index.js';
import { type StatusLineOptions, useSessionStatusLine } from '../bindings/use-status-lines.js';
import { cutStyled } from '../state/styled-line.js';

export interface StatusLineProps extends StatusLineOptions {
  mode: PermissionMode;
  width: number;
  /** Lines it may take: 0 hides it (its command still runs). */
  lines: number;
}

/** The `statusLine` command's line under the input, dimmed as Claude Code draws it; nothing without one. */
export function StatusLine({ width, lines, ...options }: StatusLineProps) {
  const { line, padding } = useSessionStatusLine(options);
  if (lines <= 0 || !line) return null;
  const indent = Math.min(padding, width);
  return (
    <Text dimColor wrap="truncate-end">
      {`${' '.repeat(indent)}${cutStyled(line, width - indent)}`}
    </Text>
  );
}
