/**
 * web_fetch's `prompt` without a model: the page cut into sections (at headings, else at
 * paragraphs), and the sections that contain the prompt's words kept. Plain word matching,
 * as the tool's description says; nothing is summarised or invented.
 */

/** What the selection kept. */
export interface Selection {
  /** The kept sections in page order, or the whole text when nothing matched. */
  text: string;
  /** The prompt's words that were looked for. */
  words: string[];
  matched: number;
  total: number;
}

/** Words too common to say which section is meant. */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from has have how i in is it its of on or that the this to was ' +
    'what when where which who why will with you your about all any into me my not our please show tell give ' +
    'find get page section sections part there these those than then them they use used using'
  ).split(' '),
);

/** The distinct words of a prompt worth matching: letters or digits, stop words and 1–2 letter words dropped. */
export function promptWords(prompt: string): string[] {
  const words = prompt.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_.-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
  return [...new Set(words.filter((w) => !STOP_WORDS.has(w) && (w.length >= 3 || /\d/.test(w))))];
}

/** Splits markdown at ATX headings outside code fences; a page with fewer than two headings, at blank lines. */
export function splitSections(markdown: string): string[] {
  const lines = markdown.split('\n');
  const atHeading: string[][] = [];
  const atParagraph: string[][] = [];
  let fence: string | undefined;
  let headings = 0;
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.some((l) => l.trim() !== '')) atParagraph.push(paragraph);
    paragraph = [];
  };
  for (const line of lines) {
    const marker = line.match(/^\s*(```+|~~~+)/)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) fence = fence === undefined ? marker : undefined;
    const heading = fence === undefined && !marker && /^#{1,6}\s/.test(line);
    if (heading || atHeading.length === 0) {
      if (heading) headings += 1;
      atHeading.push([]);
    }
    atHeading[atHeading.length - 1]!.push(line);
    if (fence === undefined && !marker && line.trim() === '') endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  const sections = headings >= 2 ? atHeading : atParagraph;
  return sections.map((s) => s.join('\n').trim()).filter((s) => s !== '');
}

/**
 * The sections containing the most of the prompt's words (ties all kept), in page order, within `maxChars`.
 * When the prompt has no usable word or no section matches, the whole text comes back (matched 0).
 */
export function selectSections(markdown: string, prompt: string, maxChars: number): Selection {
  const words = promptWords(prompt);
  const sections = splitSections(markdown);
  const scored = sections.map((text, index) => {
    const lower = text.toLowerCase();
    return { text, index, score: words.filter((w) => lower.includes(w)).length };
  });
  // Only the best: a section with fewer of the words is more likely noise than the answer.
  const best = Math.max(0, ...scored.map((s) => s.score));
  const hits = scored.filter((s) => s.score > 0 && s.score === best);
  if (words.length === 0 || hits.length === 0) return { text: markdown, words, matched: 0, total: sections.length };
  // Most words first while there is room, then back into page order.
  const kept: typeof hits = [];
  let size = 0;
  for (const hit of [...hits].sort((a, b) => b.score - a.score || a.index - b.index)) {
    if (kept.length > 0 && size + hit.text.length > maxChars) continue;
    kept.push(hit);
    size += hit.text.length + 2;
  }
  kept.sort((a, b) => a.index - b.index);
  return { text: kept.map((s) => s.text).join('\n\n'), words, matched: kept.length, total: sections.length };
}
