// Preloaded into the binary with `node --import` by tests that must type before the app is
// ready (see `holdStart` in tmux.ts). It holds the loading of the CLI's `program` chunk, which
// `main` imports just after it puts the terminal in raw mode and starts keeping keys, until the
// FIFO named by OUTRIDER_TEST_HOLD is written to and closed. Module hooks run on their own
// thread, so the app's main thread stays free to read the keys typed meanwhile.
import { register } from 'node:module';

const fifo = process.env.OUTRIDER_TEST_HOLD;
if (fifo) register('./hold-start-hooks.mjs', import.meta.url, { data: { fifo } });
