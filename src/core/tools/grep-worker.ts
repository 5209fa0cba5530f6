/**
 * The JavaScript grep's worker thread (a build entry of its own: dist/grep-worker.js).
 * It searches and posts results; the main thread terminates it on abort or at its deadline.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type JsSearchMessage, type JsSearchQuery, searchFiles } from './grep-js-search.js';

const port = parentPort;
if (port) {
  const post = (message: JsSearchMessage) => port.postMessage(message);
  searchFiles(workerData as JsSearchQuery, post).catch((error: unknown) => {
    post({ type: 'failed', error: error instanceof Error ? error.message : String(error) });
  });
}
