/**
 * What `/resume <id or its start>` switches to: the one other session it names. Every id of a
 * day (or of a minute, for UUID v7 ids) starts alike, so a prefix the current session shares
 * picks among the others; only the current session alone, or its whole id, is refused.
 */
export function resumeTarget(wanted: string, current: string, ids: readonly string[]): { id: string } | { error: string } {
  const prefix = wanted.trim();
  if (prefix === current) return { error: `${current} is this session` };
  if (ids.includes(prefix)) return { id: prefix };
  const others = ids.filter((id) => id !== current && id.startsWith(prefix));
  if (others.length === 1) return { id: others[0]! };
  if (others.length > 1) {
    const shown = others.slice(0, 5).join(', ');
    const more = others.length > 5 ? `, and ${others.length - 5} more` : '';
    return { error: `"${prefix}" matches ${others.length} other sessions (${shown}${more}): give more of the id` };
  }
  if (current.startsWith(prefix)) return { error: `"${prefix}" names only this session (${current}): /resume lists the others` };
  return { error: `no session "${prefix}": /resume lists this directory's sessions` };
}
