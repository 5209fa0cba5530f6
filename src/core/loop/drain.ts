/** Runs a generator to its end, handing each yielded value to `onValue`; resolves with what it returned. */
export async function drain<T, R>(generator: AsyncGenerator<T, R>, onValue: (value: T) => void): Promise<R> {
  for (;;) {
    const next = await generator.next();
    if (next.done) return next.value;
    onValue(next.value);
  }
}
