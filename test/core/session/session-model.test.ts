import { describe, expect, it } from 'vitest';
import { SessionModel, modelCatalogue, modelTarget } from '../../../src/core/session/session-model.js';

const anthropic = { provider: 'anthropic' as const, maxTokens: 8192 };
const openai = { provider: 'openai' as const, maxTokens: 8192 };

describe('SessionModel', () => {
  it('switches to an alias, says so to its listeners, and goes back with default', () => {
    const model = new SessionModel('claude-sonnet-5', undefined, anthropic);
    const heard: string[] = [];
    model.onChange((target) => heard.push(target.model));
    const outcome = model.switchTo('opus');
    expect(outcome).toMatchObject({ ok: true, target: { model: 'claude-opus-5-5' }, notes: [] });
    expect(model.current().model).toBe('claude-opus-5-5');
    expect(model.current().info.contextWindow).toBe(1_000_000);
    expect(model.switchTo('default')).toMatchObject({ ok: true, target: { model: 'claude-sonnet-5' } });
    expect(heard).toEqual(['claude-opus-5-5', 'claude-sonnet-5']);
  });

  it("reads the user's aliases before Claude Code's", () => {
    const model = new SessionModel('claude-sonnet-5', undefined, { ...anthropic, aliases: { opus: 'claude-opus-4-5' } });
    expect(model.switchTo('opus')).toMatchObject({ ok: true, target: { model: 'claude-opus-4-5' } });
  });

  it('refuses a model the provider cannot serve, and keeps the current one', () => {
    const model = new SessionModel('claude-sonnet-5', undefined, anthropic);
    const heard: string[] = [];
    model.onChange((target) => heard.push(target.model));
    const outcome = model.switchTo('gpt-5.5');
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.error).toMatch(/gpt-5\.5 is not served by the anthropic provider.*--provider openai/);
    expect(model.current().model).toBe('claude-sonnet-5');
    expect(heard).toEqual([]);
    // An alias for a Claude model on an OpenAI-compatible server: map it in modelAliases.
    const other = new SessionModel('gpt-5.5', undefined, openai);
    const refused = other.switchTo('sonnet');
    expect(!refused.ok && refused.error).toMatch(/claude-sonnet-5 \(sonnet means claude-sonnet-5\).*modelAliases/);
  });

  it('refuses names that are no model id, shown without their control characters', () => {
    const model = new SessionModel('claude-sonnet-5', undefined, anthropic);
    for (const hostile of ['', '   ', 'claude sonnet', 'claude-\u001b[31mred', `claude-${'x'.repeat(200)}`, '-rf', '../../etc']) {
      const outcome = model.switchTo(hostile);
      expect(outcome.ok, hostile).toBe(false);
      if (!outcome.ok) {
        // eslint-disable-next-line no-control-regex
        expect(outcome.error).not.toMatch(/[\u0000-\u001f]/);
        expect(outcome.error.length).toBeLessThan(200);
      }
    }
    expect(model.current().model).toBe('claude-sonnet-5');
  });

  it('takes the ids of OpenAI-compatible servers (vendor/model, name:tag)', () => {
    const model = new SessionModel('llama3:8b', undefined, openai);
    expect(model.switchTo('meta-llama/llama-3.1-70b-instruct')).toMatchObject({ ok: true });
    expect(model.switchTo('qwen2.5-coder:32b')).toMatchObject({ ok: true });
  });

  it('names a model outside the catalogue: its window is assumed and its price unknown', () => {
    const model = new SessionModel('claude-sonnet-5', undefined, anthropic);
    const outcome = model.switchTo('claude-nova-9');
    expect(outcome.ok && outcome.notes.join()).toMatch(
      /claude-nova-9 is not in outrider's model catalogue: a 128,000-token window/,
    );
    const known = new SessionModel('claude-sonnet-5', undefined, {
      ...anthropic,
      models: { 'claude-nova-9': { contextWindow: 500_000 } },
    });
    expect(known.switchTo('claude-nova-9')).toMatchObject({ ok: true, notes: [], target: { info: { contextWindow: 500_000 } } });
  });

  it('keeps the effort across switches, sends it only where the model takes one, and takes a new one', () => {
    const model = new SessionModel('claude-sonnet-5', 'high', anthropic);
    expect(model.current().effort).toBe('high');
    // gpt-4o is no reasoning model: nothing sent, said once; the asked effort stays for the next switch.
    const plain = new SessionModel('gpt-5.5', 'high', openai);
    const outcome = plain.switchTo('gpt-4o');
    expect(outcome).toMatchObject({ ok: true, target: { model: 'gpt-4o' } });
    expect(outcome.ok && outcome.target.effort).toBeUndefined();
    expect(outcome.ok && outcome.notes.join()).toMatch(/effort high: gpt-4o takes no reasoning effort/);
    expect(plain.switchTo('gpt-5.5')).toMatchObject({ ok: true, target: { effort: 'high' } });
    expect(model.switchTo('opus', 'low')).toMatchObject({ ok: true, target: { model: 'claude-opus-5-5', effort: 'low' } });
    expect(model.askedEffort()).toBe('low');
    const bad = model.switchTo('opus', 'extreme');
    expect(!bad.ok && bad.error).toMatch(/effort "extreme" is not one of low, medium, high, max/);
  });

  it("bounds the answer's cap by the model's output limit", () => {
    expect(modelTarget('gpt-4o', undefined, { ...openai, maxTokens: 64_000 }).target.maxTokens).toBe(16_384);
    expect(modelTarget('claude-sonnet-5', undefined, { ...anthropic, maxTokens: 64_000 }).target.maxTokens).toBe(64_000);
  });
});

describe('modelCatalogue', () => {
  it("lists only the provider's models, newest first, the current one marked, with the aliases that name them", () => {
    const entries = modelCatalogue('claude-sonnet-5', anthropic);
    expect(entries.every((entry) => entry.id.startsWith('claude-'))).toBe(true);
    expect(entries.filter((entry) => entry.current).map((entry) => entry.id)).toEqual(['claude-sonnet-5']);
    expect(entries.find((entry) => entry.id === 'claude-sonnet-5')?.aliases).toEqual(['sonnet']);
    expect(entries.find((entry) => entry.id === 'claude-opus-5-5')?.aliases).toEqual(['opus']);
    expect(entries.findIndex((e) => e.id === 'claude-haiku-5-5')).toBeLessThan(
      entries.findIndex((e) => e.id === 'claude-opus-4'),
    );
  });

  it("adds the settings' models and the aliases' targets, and the current model even when unknown", () => {
    const entries = modelCatalogue('my-local-model', {
      ...openai,
      models: { 'qwen-coder': { contextWindow: 32_000 } },
      aliases: { fast: 'llama3:8b' },
    });
    const ids = entries.map((entry) => entry.id);
    expect(ids).toEqual(expect.arrayContaining(['qwen-coder', 'llama3:8b', 'my-local-model', 'gpt-5.5']));
    expect(ids.some((id) => id.startsWith('claude-'))).toBe(false);
    expect(entries.find((entry) => entry.id === 'llama3:8b')?.aliases).toEqual(['fast']);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
