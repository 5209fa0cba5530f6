/**
 * The reading half of web_fetch: bytes to text. HTML becomes markdown of its main article
 * (Readability on linkedom, then turndown); text, markdown and JSON stay text. The three
 * libraries are imported on the first HTML page, so a session that never fetches never loads them.
 */
import type { FetchedPage } from './web-fetch-http.js';

/** A page as text, with what we learned on the way. */
export interface PageText {
  title?: string;
  text: string;
}

/** The few DOM members used here (the project compiles without the DOM library). */
interface DomElement {
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  closest(selector: string): DomElement | null;
  prepend(node: DomElement): void;
  remove(): void;
  textContent: string | null;
  innerHTML: string;
}
interface DomDocument {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  createElement(tag: string): DomElement;
  head: DomElement | null;
  body: DomElement | null;
}

type ReadabilityModule = typeof import('@mozilla/readability');

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Chrome a page wraps its content in, dropped before Readability looks (it keeps a short page whole). */
const CHROME =
  'script, style, noscript, template, iframe, svg, canvas, button, nav, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"]';

export async function pageText(page: FetchedPage): Promise<PageText> {
  const html = HTML_TYPES.has(page.mediaType) || (page.mediaType === '' && looksLikeHtml(page.body));
  const text = decode(page.body, page.charset ?? (html ? metaCharset(page.body) : undefined));
  if (html) return htmlToMarkdown(text, page.url);
  if (page.mediaType === 'application/json' || page.mediaType.endsWith('+json')) return { text: prettyJson(text) };
  return { text };
}

/** Decodes with the page's charset; an unknown label falls back to UTF-8. */
function decode(bytes: Uint8Array, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** `<meta charset="…">` or the http-equiv form, in the first 1024 bytes, as browsers look for it. */
function metaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.match(/<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1]?.toLowerCase();
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const start = new TextDecoder('utf-8').decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html');
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

async function htmlToMarkdown(html: string, url: string): Promise<PageText> {
  const [{ parseHTML }, readability, { default: TurndownService }] = await Promise.all([
    import('linkedom'),
    import('@mozilla/readability') as Promise<ReadabilityModule & { default?: ReadabilityModule }>,
    import('turndown'),
  ]);
  // A CommonJS module: Node names its exports, the esbuild bundle gives them as `default` only.
  const Readability = readability.Readability ?? readability.default!.Readability;
  const load = (): DomDocument => {
    // linkedom's types lean on the DOM library this project does not compile with.
    const parsed = parseHTML(html) as unknown as { document: DomDocument };
    const document = parsed.document;
    // Relative links resolve against the page's own URL unless it names a base itself.
    if (!document.querySelector('base[href]')) {
      const base = document.createElement('base');
      base.setAttribute('href', url);
      document.head?.prepend(base);
    }
    for (const node of document.querySelectorAll(CHROME)) node.remove();
    // A site's header, not an article's own (its title, its byline).
    for (const node of document.querySelectorAll('header')) if (!node.closest('article, main')) node.remove();
    return document;
  };

  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'template', 'iframe']);
  // An image is its alt text and address; inline data: images would be pages of base64.
  turndown.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const element = node as unknown as DomElement;
      const alt = (element.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
      const src = element.getAttribute('src') ?? '';
      if (!/^https?:/i.test(src)) return alt ? `[image: ${alt}]` : '';
      return `![${alt}](${src})`;
    },
  });

  const document = load();
  const title = document.querySelector('title')?.textContent?.trim() || undefined;
  // Readability rewrites the document it reads; nothing else uses this copy.
  const article = new Readability(document as never, { charThreshold: 200 }).parse();
  if (article?.content && (article.textContent ?? '').trim().length > 0) {
    return { title: article.title?.trim() || title, text: tidy(turndown.turndown(article.content)) };
  }
  // No article found (a short page, an app shell): the body without its chrome.
  const body = load().body?.innerHTML ?? html;
  return { title, text: tidy(turndown.turndown(body)) };
}

/** Runs of blank lines folded to one: turndown leaves them where markup was removed. */
function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, '\n\n').trim();
}
