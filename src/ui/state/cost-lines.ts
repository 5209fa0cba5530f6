import { formatTokens, totalTokens } from '../../core/index.js';
import type { CostRow } from '../ui-session.js';

/** The /cost table: one aligned line per row, the total last. */
export function costLines(rows: readonly CostRow[], total: CostRow): string[] {
  const all = [...rows, total];
  const cells = all.map((row) => [
    row.name,
    formatTokens(row.usage.input),
    formatTokens(row.usage.output),
    formatTokens(row.usage.cacheRead),
    formatTokens(row.usage.cacheWrite),
    formatTokens(totalTokens(row.usage)),
    row.cost === undefined ? 'unknown' : `$${row.cost.toFixed(4)}`,
  ]);
  const header = ['', 'input', 'output', 'cache read', 'cache write', 'total', 'cost'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [line(header), ...cells.map(line)];
}
