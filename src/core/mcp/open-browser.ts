import { spawn } from 'node:child_process';
import { withoutSecrets } from '../platform/child-env.js';
import { findExecutable } from '../platform/find-executable.js';

/**
 * Opens `url` (http or https only) in the user's browser where that can be done without taking
 * the terminal: `open` on macOS, `xdg-open` elsewhere and only with a graphical display
 * (without one it may start a text browser in this very terminal). Resolves true when the
 * opener started; never throws: the caller always shows the URL as well.
 */
export async function openInBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<boolean> {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return false;
  }
  // An authorization server names the page; a scheme that starts some other program is not opened.
  if (protocol !== 'https:' && protocol !== 'http:') return false;
  const graphical = platform === 'darwin' || Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
  if (!graphical) return false;
  const opener = await findExecutable(platform === 'darwin' ? 'open' : 'xdg-open', env.PATH ?? '');
  if (!opener) return false;
  return new Promise<boolean>((resolve) => {
    try {
      const child = spawn(opener, [url], {
        detached: true,
        stdio: 'ignore',
        env: withoutSecrets(env, { names: [], values: [] }, { credentials: true }),
      });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
