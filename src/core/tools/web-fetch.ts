import * as z from 'zod';
import type { Timers } from '../platform/timers.js';
import { formatSize } from '../platform/text.js';
import { defineTool } from './define.js';
import { pageText } from './web-content.js';
import { type FetchLimits, type FetchedPage, fetchPage } from './web-fetch-http.js';
import { selectSections } from './web-sections.js';

/** Defaults of the two settings (`webFetchMaxBytes`, `webFetchTimeoutMs`). */
export const WEB_FETCH_DEFAULTS = { maxBytes: 5 * 1024 * 1024, timeoutMs: 30_000 } as const;
/** Same-site redirects followed before giving up. */
export const MAX_REDIRECTS = 10;
/** Characters of text returned at most; over 32 KB the result store keeps it for read_result. */
export const MAX_TEXT_CHARS = 100_000;
/** Of an error page (404, 500), this much text is shown. */
const ERROR_PAGE_CHARS = 4_000;

export interface WebFetchOptions {
  maxBytes?: number;
  timeoutMs?: number;
  /** The time cap runs on these (tests pass a fake clock). */
  timers?: Timers;
}

/** web_fetch: one http(s) page as text, every bound from `options`. */
export function webFetchTool(options: WebFetchOptions = {}) {
  const limits: FetchLimits = {
    maxBytes: options.maxBytes ?? WEB_FETCH_DEFAULTS.maxBytes,
    timeoutMs: options.timeoutMs ?? WEB_FETCH_DEFAULTS.timeoutMs,
    maxRedirects: MAX_REDIRECTS,
  };
  return defineTool({
    name: 'web_fetch',
    description:
      'Fetch an http(s) URL as text: HTML as markdown of its main content, text and JSON as they are. prompt keeps ' +
      'only the sections with the most of its words (no model reads the page). A redirect to another host is ' +
      'reported, not followed.',
    kind: 'network',
    parallel: true,
    schema: z.object({
      url: z.string().describe('absolute http(s) URL'),
      prompt: z.string().optional().describe('words to look for'),
    }),
    label: (args) => args.url,
    execute: async (args, ctx) => {
      const outcome = await fetchPage(args.url, limits, { signal: ctx.signal, timers: options.timers });
      if (outcome.kind === 'other-host') {
        return (
          `${outcome.from} redirects (${outcome.status}) to ${outcome.to}, on another host. ` +
          'To read it, call web_fetch with that URL.'
        );
      }
      return render(outcome.page, await pageText(outcome.page), args.prompt, limits);
    },
  });
}

function render(
  page: FetchedPage,
  content: Awaited<ReturnType<typeof pageText>>,
  prompt: string | undefined,
  limits: FetchLimits,
) {
  const ok = page.status >= 200 && page.status < 300;
  const head = [`URL: ${page.url}`];
  if (page.url !== page.requestedUrl) head.push(`Redirected from: ${page.requestedUrl}`);
  if (content.title) head.push(`Title: ${content.title}`);
  if (!ok)
    head.unshift(`HTTP ${page.status}${page.statusText ? ` ${page.statusText}` : ''}: the server answered with an error page.`);
  if (page.truncated) {
    head.push(
      `Note: the page is larger than ${formatSize(limits.maxBytes)} (setting webFetchMaxBytes); only its first ${formatSize(limits.maxBytes)} were read.`,
    );
  }

  let text = content.text;
  if (prompt !== undefined && prompt.trim() !== '' && ok) {
    const selection = selectSections(text, prompt, MAX_TEXT_CHARS);
    const looked = selection.words.length ? selection.words.join(', ') : '(no usable words)';
    head.push(
      selection.matched > 0
        ? `Sections containing ${looked}: ${selection.matched} of ${selection.total} (chosen by word matching).`
        : `No section contains ${looked}; the whole page follows.`,
    );
    text = selection.text;
  }
  const cap = ok ? MAX_TEXT_CHARS : ERROR_PAGE_CHARS;
  if (text.length > cap) {
    head.push(`Note: the text is ${text.length} characters; the first ${cap} follow.`);
    text = text.slice(0, cap);
  }
  if (text.trim() === '') text = '(the page has no text)';
  return { content: `${head.join('\n')}\n\n${text}`, ...(ok ? {} : { isError: true }) };
}
