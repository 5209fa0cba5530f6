import { formatTokens, totalTokens } from '../../core/index.js';
import type { CostRow } from '../ui-session.js';

/**
 * The /cost table: one aligned line per row (the parent, then each job, with the model each ran
 * on), then, when more than one model was used, one line per model, the total last.
 */
export function costLines(rows: readonly CostRow[], total: CostRow, models: readonly CostRow[] = []): string[] {
  const byModel = models.length > 1 ? models.map((row, i) => ({ ...row, name: i === 0 ? 'by model' : '' })) : [];
  const all = [...rows, ...byModel, total];
  // The parent alone: its model is in the footer already.
  const withModels = rows.length > 1 && all.some((row) => row.model !== undefined);
  const cells = all.map((row) => [
    row.name,
    ...(withModels ? [row.model ?? ''] : []),
    formatTokens(row.usage.input),
    formatTokens(row.usage.output),
    formatTokens(row.usage.cacheRead),
    formatTokens(row.usage.cacheWrite),
    formatTokens(totalTokens(row.usage)),
    row.cost === undefined ? 'unknown' : `$${row.cost.toFixed(4)}`,
  ]);
  const header = ['', ...(withModels ? ['model'] : []), 'input', 'output', 'cache read', 'cache write', 'total', 'cost'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const left = withModels ? 2 : 1;
  const line = (c: string[]) =>
    c
      .map((cell, i) => (i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}
