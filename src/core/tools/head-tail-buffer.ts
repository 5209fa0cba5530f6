/** Collects streamed text up to `cap` characters, keeping the head and the tail and counting what falls between. */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly cap: number) {}

  append(text: string): void {
    const headRoom = Math.floor(this.cap / 2) - this.head.length;
    if (headRoom > 0) {
      this.head += text.slice(0, headRoom);
      text = text.slice(headRoom);
    }
    if (text === '') return;
    this.tail += text;
    // Trim in batches, not per chunk, so a chatty command costs linear time.
    if (this.tail.length > 2 * this.cap) {
      const cut = this.tail.length - this.cap;
      this.dropped += cut;
      this.tail = this.tail.slice(cut);
    }
  }

  /** Everything when it fits; otherwise head, a note of how much was cut, and tail. */
  text(): string {
    const keep = this.cap - this.head.length;
    if (this.dropped === 0 && this.tail.length <= keep) return this.head + this.tail;
    const cut = this.dropped + this.tail.length - keep;
    return `${this.head}\n… [${cut} characters cut from the middle of the output] …\n${this.tail.slice(-keep)}`;
  }
}
