/** Small statistics for noisy figures: medians, and interleaved pairs measured side by side. */

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Median absolute deviation over the median: how spread a set of samples is, as a fraction. */
export function spread(values: number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m))) / m;
}

/** The two sides of an interleaved comparison, sample by sample in pair order. */
export interface Pairs<A, B> {
  a: A[];
  b: B[];
}

/**
 * Runs `a` and `b` one after the other `count` times, alternating which goes first, so a
 * change of load on the machine falls on both sides alike. Warm-up runs (not kept) first.
 */
export async function interleave<A, B>(
  count: number,
  a: () => Promise<A>,
  b: () => Promise<B>,
  options: { warmup?: number } = {},
): Promise<Pairs<A, B>> {
  for (let i = 0; i < (options.warmup ?? 1); i += 1) {
    await a();
    await b();
  }
  const pairs: Pairs<A, B> = { a: [], b: [] };
  for (let i = 0; i < count; i += 1) {
    if (i % 2 === 0) {
      pairs.a.push(await a());
      pairs.b.push(await b());
    } else {
      pairs.b.push(await b());
      pairs.a.push(await a());
    }
  }
  return pairs;
}

/** The median of the per-pair ratios a/b: each ratio is taken under one moment's load. */
export function pairedRatio(a: number[], b: number[]): number {
  return median(a.map((value, i) => value / b[i]!));
}

/** The median of the per-pair differences a − b. */
export function pairedDifference(a: number[], b: number[]): number {
  return median(a.map((value, i) => value - b[i]!));
}
