import path from 'node:path';
import { commandOf } from './policy.js';
import { type PermissionRule, type RuleFamily, RuleSyntaxError, parseRule, ruleTarget } from './rules.js';
import { pathGlobMatcher, wildcardMatcher } from './rule-glob.js';
import { allowedCommand, commandMatches, commandPaths, normalize, roughCommands } from './rule-commands.js';
import type { Decision, PermissionRequest } from './types.js';

/** The three lists of rules, as settings and flags give them. */
export interface RuleLists {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
}

/** Where path rules are read from: the project's root (as given and as its real path) and the user's home. */
export interface RuleContext {
  roots: readonly string[];
  home?: string;
}

type ListName = 'allow' | 'ask' | 'deny';

/** One rule made ready to match calls. */
interface CompiledRule {
  text: string;
  /** Whether the rule's tool part names this tool. */
  names(toolName: string): boolean;
  family: RuleFamily;
  /** Undefined: every call of the tool. */
  specifier?: string;
  /** Which calls it covers, in words (`/permissions`, --doctor). */
  covers: string;
}

/**
 * A session's permission rules. `deny` wins over everything (every mode, yolo included, and
 * a hook's allow); `ask` makes a call ask every time; `allow` answers an ordinary ask in
 * advance. Pure: the same request always gets the same answer.
 */
export class PermissionRules {
  /** Rules that do nothing or do less than they say (a tool outrider lacks, a specifier it cannot read). */
  readonly warnings: string[] = [];
  private readonly lists: Record<ListName, CompiledRule[]> = { allow: [], ask: [], deny: [] };

  constructor(
    lists: RuleLists,
    readonly context: RuleContext,
  ) {
    for (const name of ['deny', 'ask', 'allow'] as const) {
      for (const written of new Set(lists[name] ?? [])) {
        const compiled = this.compile(written, name);
        if (compiled) this.lists[name].push(compiled);
      }
    }
  }

  /** True when there is no rule at all. */
  get empty(): boolean {
    return this.lists.allow.length + this.lists.ask.length + this.lists.deny.length === 0;
  }

  /** One line a rule: its list, the rule as written, and which calls it covers (`--doctor`, `/permissions`). */
  explain(): string[] {
    const verbs: Record<ListName, string> = { deny: 'refused', ask: 'asks every time', allow: 'runs without asking' };
    return (['deny', 'ask', 'allow'] as const).flatMap((list) =>
      this.lists[list].map((rule) => `${list} ${rule.text}: ${rule.covers} (${verbs[list]})`),
    );
  }

  /** Every rule by list, as written (for `/permissions`). */
  describe(): Record<ListName, string[]> {
    return {
      allow: this.lists.allow.map((r) => r.text),
      ask: this.lists.ask.map((r) => r.text),
      deny: this.lists.deny.map((r) => r.text),
    };
  }

  /** The deny rule that matches this call, if one does. */
  denied(request: PermissionRequest): string | undefined {
    return this.lists.deny.find((rule) => this.matchesAny(rule, request))?.text;
  }

  /** The ask rule that matches this call, if one does. */
  asked(request: PermissionRequest): string | undefined {
    return this.lists.ask.find((rule) => this.matchesAny(rule, request))?.text;
  }

  /**
   * The allow rule(s) that cover this whole call, if they do: every path it touches, and of a
   * bash command every simple command in it (each matched by an allow rule, or only reading).
   */
  allowed(request: PermissionRequest): string | undefined {
    const rules = this.lists.allow.filter((rule) => rule.names(request.toolName));
    if (rules.length === 0) return undefined;
    const whole = rules.find((rule) => rule.specifier === undefined);
    if (whole) return whole.text;
    if (request.toolName === 'bash') return allowedCommand(rules, commandOf(request.args));
    return rules.find((rule) => this.coversAll(rule, request))?.text;
  }

  private compile(written: string, list: ListName): CompiledRule | undefined {
    let rule: PermissionRule;
    try {
      rule = parseRule(written);
    } catch (error) {
      if (!(error instanceof RuleSyntaxError)) throw error;
      this.warnings.push(`permissions.${list}: ${error.message}; the rule is left out`);
      return undefined;
    }
    const target = ruleTarget(rule.tool);
    if (target.kind === 'none') {
      this.warnings.push(`permissions.${list}: ${JSON.stringify(rule.text)} does nothing: ${target.why}`);
      return undefined;
    }
    const names =
      target.kind === 'tools'
        ? (name: string) => target.tools.includes(name)
        : target.kind === 'server'
          ? (name: string) => name.startsWith(target.prefix)
          : wildcardMatcher(target.pattern);
    const family = target.kind === 'server' ? 'plain' : target.family;
    const tools =
      target.kind === 'tools'
        ? target.tools.join(', ')
        : target.kind === 'server'
          ? `every tool of the MCP server ${target.prefix.slice(5, -2)}`
          : `tools named like ${target.pattern}`;
    if (rule.specifier !== undefined && family === 'plain') {
      // A deny or ask read wider than written is safe; an allow read wider is not.
      if (list === 'allow') {
        this.warnings.push(
          `permissions.allow: ${JSON.stringify(rule.text)} is left out: outrider cannot limit ${rule.tool} to a specifier`,
        );
        return undefined;
      }
      this.warnings.push(
        `permissions.${list}: ${JSON.stringify(rule.text)} applies to all of ${rule.tool}: outrider cannot limit it to a specifier`,
      );
      return { text: rule.text, names, family, covers: `every call of ${tools}` };
    }
    if (family === 'web' && rule.specifier !== undefined && !rule.specifier.startsWith('domain:')) {
      if (list === 'allow') {
        this.warnings.push(`permissions.allow: ${JSON.stringify(rule.text)} is left out: write WebFetch(domain:example.com)`);
        return undefined;
      }
      this.warnings.push(
        `permissions.${list}: ${JSON.stringify(rule.text)} applies to every fetch: write WebFetch(domain:example.com)`,
      );
      return { text: rule.text, names, family, covers: `every call of ${tools}` };
    }
    const covers =
      rule.specifier === undefined ? `every call of ${tools}` : `${tools}: ${this.describeSpecifier(family, rule.specifier)}`;
    return { text: rule.text, names, family, covers, ...(rule.specifier !== undefined ? { specifier: rule.specifier } : {}) };
  }

  private describeSpecifier(family: RuleFamily, spec: string): string {
    switch (family) {
      case 'read':
      case 'edit': {
        const base = spec.startsWith('//')
          ? '/'
          : spec.startsWith('~/')
            ? (this.context.home ?? '~')
            : (this.context.roots[0] ?? '.');
        const anywhere =
          !spec.startsWith('/') && !spec.startsWith('~/') && !spec.startsWith('./') && !spec.replace(/\/+$/, '').includes('/');
        return `paths matching ${spec} ${anywhere ? 'at any depth under' : 'from'} ${base} (and bash commands naming them, for deny and ask)`;
      }
      case 'bash': {
        const prefix = /^(.*?)(?::\*| \*)$/.exec(normalize(spec));
        return prefix ? `commands that are "${prefix[1]}" or start with "${prefix[1]} "` : `the command "${normalize(spec)}"`;
      }
      case 'web':
        return `fetches from ${spec.slice('domain:'.length)}`;
      case 'agent':
        return `sub-agents of type ${spec}`;
      case 'skill':
        return `the skill ${spec}`;
      case 'plain':
        return spec;
    }
  }

  /** deny and ask: the rule matches when any part of the call does. */
  private matchesAny(rule: CompiledRule, request: PermissionRequest): boolean {
    const spec = rule.specifier;
    if (rule.names(request.toolName)) {
      if (spec === undefined) return true;
      switch (rule.family) {
        case 'read':
        case 'edit': {
          const match = this.pathMatcher(spec);
          return request.paths.some((p) => match(p.absolute) || match(p.real));
        }
        case 'bash': {
          const command = commandOf(request.args);
          return command === undefined || roughCommands(command).some((c) => commandMatches(spec, c));
        }
        case 'web':
          return hostMatches(spec, request.args, { unreadable: true });
        case 'agent':
          return sameName(spec, argOf(request.args, 'agent') ?? 'explore');
        case 'skill':
          return sameName(spec, argOf(request.args, 'name') ?? argOf(request.args, 'skill'));
        case 'plain':
          return true;
      }
    }
    // A command that names a path a Read or Edit rule denies: best effort, as in Claude Code.
    if (request.toolName === 'bash' && spec !== undefined && (rule.family === 'read' || rule.family === 'edit')) {
      const command = commandOf(request.args);
      if (command === undefined) return false;
      const match = this.pathMatcher(spec);
      return commandPaths(command).some((word) => match(this.resolve(word)));
    }
    return false;
  }

  /** allow: every path the call touches matches, by its name and by its real path. */
  private coversAll(rule: CompiledRule, request: PermissionRequest): boolean {
    const spec = rule.specifier!;
    switch (rule.family) {
      case 'read':
      case 'edit': {
        const match = this.pathMatcher(spec);
        return request.paths.length > 0 && request.paths.every((p) => match(p.absolute) && match(p.real));
      }
      case 'web':
        return hostMatches(spec, request.args, { unreadable: false });
      case 'agent':
        return sameName(spec, argOf(request.args, 'agent') ?? 'explore');
      case 'skill':
        return sameName(spec, argOf(request.args, 'name') ?? argOf(request.args, 'skill'));
      default:
        return false;
    }
  }

  private resolve(word: string): string {
    if (word === '~' || word.startsWith('~/')) return path.join(this.context.home ?? '/nonexistent-home', word.slice(1));
    return path.resolve(this.context.roots[0] ?? '/', word);
  }

  /**
   * A path pattern as Claude Code reads it (gitignore's rules): `//abs` from the filesystem's
   * root, `~/p` from the home folder, `/p` and `./p` from the project's root; a pattern with no
   * `/` matches at any depth; a folder's pattern covers what is inside it.
   */
  private pathMatcher(spec: string): (absolute: string) => boolean {
    let bases: readonly string[] = this.context.roots;
    let pattern = spec;
    if (spec.startsWith('//')) {
      bases = ['/'];
      pattern = spec.slice(2);
    } else if (spec === '~' || spec.startsWith('~/')) {
      bases = this.context.home ? [this.context.home] : [];
      pattern = spec.slice(2);
    } else if (spec.startsWith('/')) {
      pattern = spec.slice(1);
    } else if (spec.startsWith('./')) {
      pattern = spec.slice(2);
    } else if (!spec.replace(/\/+$/, '').includes('/')) {
      pattern = `**/${spec}`;
    }
    pattern = pattern.replace(/\/+$/, '/**');
    if (pattern === '' || pattern === '**/') pattern = '**';
    const glob = pathGlobMatcher(pattern);
    return (absolute) =>
      bases.some((base) => {
        const relative = path.relative(base, absolute);
        if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return pattern === '**' && relative === '';
        // The path itself or a folder it is in: `secrets` covers `secrets/key.pem`.
        const parts = relative.split(path.sep);
        for (let i = parts.length; i >= 1; i--) if (glob(parts.slice(0, i).join('/'))) return true;
        return false;
      });
  }
}

/**
 * The policy's decision with the rules on it: a deny rule denies (every mode, yolo included);
 * an ask rule makes the call ask every time, unless the policy denies it; an allow rule answers
 * an ordinary ask. Pure.
 */
export function applyRules(decision: Decision, request: PermissionRequest, rules: PermissionRules | undefined): Decision {
  if (!rules || rules.empty) return decision;
  const denied = rules.denied(request);
  if (denied) return { decision: 'deny', reason: `${request.toolName}: denied by the permission rule ${JSON.stringify(denied)}` };
  if (decision.decision === 'deny') return decision;
  const asked = rules.asked(request);
  if (asked) {
    return {
      decision: 'ask',
      reason: `${request.toolName}: the permission rule ${JSON.stringify(asked)} asks every time`,
      askEveryTime: true,
    };
  }
  if (decision.decision === 'ask' && !decision.askEveryTime) {
    const allowed = rules.allowed(request);
    if (allowed) return { decision: 'allow', reason: `allowed by the permission rule ${JSON.stringify(allowed)}` };
  }
  return decision;
}

/** `WebFetch(domain:host)`: the URL's host is that host or, for `domain:*.host`, under it. */
function hostMatches(spec: string, args: unknown, options: { unreadable: boolean }): boolean {
  const domain = spec.slice('domain:'.length).trim().toLowerCase();
  const url = argOf(args, 'url');
  let host: string;
  try {
    host = new URL(url ?? '').hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return options.unreadable;
  }
  if (domain.startsWith('*.')) return host.endsWith(domain.slice(1)) || host === domain.slice(2);
  return host === domain;
}

function argOf(args: unknown, key: string): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const value = (args as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

const sameName = (spec: string, name: string | undefined): boolean =>
  name !== undefined && spec.trim().toLowerCase() === name.trim().toLowerCase();
