/** The one table `npm run bench` prints, and the figures it is made of. */

/** How a figure is compared with its reference: a ratio (≤ target×), or a difference (≤ target units more). */
export type Comparison = 'ratio' | 'difference' | 'equal';

/** One measured figure beside its reference and its target. */
export interface Figure {
  /** Stable id for result files: `loop.anthropic.wall`. */
  id: string;
  /** What is measured, for a person. */
  name: string;
  /** The node version the measured processes ran on. */
  node: string;
  outrider: number;
  /** What outrider is compared with: the reference agent, node -e 0, an ideal. */
  reference: number;
  referenceLabel: string;
  unit: string;
  comparison: Comparison;
  /** outrider / reference (ratio) or outrider − reference (difference), taken pair by pair. */
  value: number;
  /** The most `value` may be; undefined for figures that are informational. */
  target?: number;
  /** Samples behind the figure (pairs), for the result file. */
  samples?: { outrider: number[]; reference: number[] };
  /** A word on how it was measured, for the result file. */
  note?: string;
}

export function met(figure: Figure): boolean | undefined {
  if (figure.target === undefined) return undefined;
  if (figure.comparison === 'equal') return figure.value === figure.target;
  return figure.value <= figure.target;
}

function amount(value: number, unit: string): string {
  if (Number.isNaN(value)) return 'n/a';
  if (unit === 'ms' && Math.abs(value) >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  const digits = unit === 'ms' && Math.abs(value) < 10 ? 2 : unit === 'MB' || unit === 'ms' ? 0 : 1;
  return unit === '' ? String(value) : `${value.toFixed(digits)} ${unit}`;
}

function shownValue(figure: Figure): string {
  if (figure.comparison === 'equal') return figure.value === 1 ? 'yes' : 'NO';
  if (figure.comparison === 'ratio') return `${figure.value.toFixed(2)}×`;
  const sign = figure.value >= 0 ? '+' : '−';
  return `${sign}${amount(Math.abs(figure.value), figure.unit)}`;
}

function shownTarget(figure: Figure): string {
  if (figure.target === undefined) return '—';
  if (figure.comparison === 'equal') return 'yes';
  if (figure.comparison === 'ratio') return `≤ ${figure.target.toFixed(2)}×`;
  return `≤ +${amount(figure.target, figure.unit)}`;
}

const headers = ['node', 'figure', 'outrider', 'reference (or ideal)', 'ratio', 'target', ''];

/** The rows as text cells, in table order. */
export function cells(figures: Figure[]): string[][] {
  return figures.map((f) => {
    const ok = met(f);
    const reference = f.comparison === 'equal' ? f.referenceLabel : `${amount(f.reference, f.unit)} ${f.referenceLabel}`;
    return [
      f.node,
      f.name,
      f.comparison === 'equal' ? '' : amount(f.outrider, f.unit),
      reference,
      shownValue(f),
      shownTarget(f),
      ok === undefined ? 'info' : ok ? 'met' : 'MISSED',
    ];
  });
}

/** The table for a terminal: aligned columns. */
export function renderTable(figures: Figure[]): string {
  const rows = [headers, ...cells(figures)];
  const widths = headers.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => (c >= 2 && c <= 5 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The same table in Markdown, for the README. */
export function renderMarkdown(figures: Figure[]): string {
  const rows = cells(figures);
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| ${headers.slice(0, 6).join(' | ')} | met |`,
    `|${headers.map((_, i) => (i >= 2 && i <= 5 ? ' ---: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}
