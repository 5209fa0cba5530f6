/** What every figure gets: the node under test, the mock provider, how many pairs to run. */
import type { MockProvider } from '../../test/support/mock-provider.js';
import type { Figure } from './table.js';

export interface BenchContext {
  /** The node binary the measured processes run on. */
  node: string;
  /** Its version, e.g. v24.21.0. */
  nodeVersion: string;
  mock: MockProvider;
  /** Interleaved pairs per figure (fewer with --quick). */
  pairs: number;
  /** Progress lines go here (stderr), so the table stays alone on stdout. */
  log: (line: string) => void;
}

/** A group of figures measured together. */
export type FigureGroup = (ctx: BenchContext) => Promise<Figure[]>;
