// The module hooks behind hold-start.mjs: the first load of dist/program-*.js waits until the
// FIFO has been written to and closed (reading a FIFO blocks until a writer comes, then reads to
// its end).
import { readFile } from 'node:fs/promises';

/** @type {{ fifo: string | undefined, held: boolean }} */
const hold = { fifo: undefined, held: false };

export function initialize(data) {
  hold.fifo = data.fifo;
}

export async function load(url, context, nextLoad) {
  if (hold.fifo && !hold.held && /\/dist\/program-[^/]*\.js$/.test(url)) {
    hold.held = true;
    await readFile(hold.fifo);
  }
  return nextLoad(url, context);
}
