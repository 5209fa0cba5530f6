/** `/model`'s list: the models the provider serves that outrider knows, with their windows and prices. */
import type { CatalogueEntry } from '../../core/index.js';

/** One line per model, numbered (`/model <n>` picks one), the current one marked, then how to switch. */
export function modelLines(entries: readonly CatalogueEntry[], effort?: string): string[] {
  const rows = entries.map((entry, i) => {
    const number = `${i + 1}.`.padStart(3);
    const mark = entry.current ? '●' : ' ';
    const aliases = entry.aliases.length ? ` (${entry.aliases.join(', ')})` : '';
    return `${mark} ${number} ${entry.id}${aliases}  ${windowText(entry.info.contextWindow)} · ${priceText(entry.info)}`;
  });
  const current = entries.find((entry) => entry.current);
  return [
    ...rows,
    `Now: ${current?.id ?? 'unknown'}${effort ? ` · effort ${effort}` : ''}. Switch with /model <name|n> [low|medium|high|max]; ` +
      'the next turn runs on it, as do sub-agents started after it that inherit the model.',
  ];
}

/** `1M window`, `200k window`. */
export function windowText(tokens: number): string {
  return tokens >= 1_000_000 && tokens % 1_000_000 < 50_000
    ? `${Math.round(tokens / 1_000_000)}M window`
    : `${Math.round(tokens / 1000)}k window`;
}

/** `$3 / $15 per M tokens in / out`, or that the price is unknown. */
function priceText(info: CatalogueEntry['info']): string {
  if (info.inputPrice === undefined || info.outputPrice === undefined) return 'price unknown';
  return `$${dollars(info.inputPrice)} / $${dollars(info.outputPrice)} per M in / out`;
}

function dollars(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(3)));
}
