// Preloaded into the built binary (NODE_OPTIONS=--import) by test/e2e/no-undici.test.ts: at
// exit it writes which of Node's internal modules named undici the process loaded (Node's
// fetch and its Headers, FormData, Request and Response globals all live there) to the file
// named by UNDICI_PROBE_FILE, as a JSON array.
import { writeFileSync } from 'node:fs';

const file = process.env.UNDICI_PROBE_FILE;
if (file) {
  process.on('exit', () => {
    writeFileSync(file, JSON.stringify(process.moduleLoadList.filter((name) => /undici/i.test(name))));
  });
}
