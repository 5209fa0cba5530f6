import picomatch from 'picomatch';

/**
 * Tool names matched against a list of names and patterns (`permissions.allow`, an agent
 * definition's `tools`): `mcp__github__*` matches every tool of the github server. A name
 * without glob characters matches only itself. Matching is case-sensitive, as tool names are.
 */
export function toolNameMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  return picomatch([...patterns], { dot: true, nocase: false });
}
