/**
 * A memo of at most 2 × `size` entries, for the bundle's copies of Ink's text caches. Ink keeps
 * every text it ever measured or wrapped, for the life of the process: a TUI that runs for hours
 * with rows whose text changes every second (elapsed times, token counts, streamed lines) grows
 * without end. Two generations bound it in constant time per call: when the newer fills, the
 * older is dropped whole, and a hit in the older moves the entry up, so what is drawn every frame
 * stays cached.
 */
export class BoundedCache<V> {
  private newer = new Map<string, V>();
  private older = new Map<string, V>();

  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const hit = this.newer.get(key);
    if (hit !== undefined) return hit;
    const old = this.older.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.newer.size >= this.size) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(key, value);
  }

  /** Entries held now (never more than twice the size). */
  get entries(): number {
    return this.newer.size + this.older.size;
  }
}
