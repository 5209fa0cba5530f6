import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { responsesTurnError } from '../../support/mock-responses-wire.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

const user = { role: 'user', content: 'q' };
const call = { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{}' };
const output = { type: 'function_call_output', call_id: 'c1', output: 'x' };
const reasoning = { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc' };

describe("the mock's Responses endpoint", () => {
  it('refuses the input the real API refuses: calls without outputs, outputs without calls, reasoning left alone or unencrypted', () => {
    expect(responsesTurnError({ store: false, input: [user, reasoning, call, output] })).toBeUndefined();
    expect(responsesTurnError({ input: [] })).toMatch(/at least one item/);
    expect(responsesTurnError({ input: [user, call, user] })).toBe('No tool output found for function call c1.');
    expect(responsesTurnError({ input: [user, call] })).toBe('No tool output found for function call c1.');
    expect(responsesTurnError({ input: [user, output] })).toBe('No tool call found for function call output with call_id c1.');
    expect(responsesTurnError({ input: [user, reasoning] })).toMatch(/without its required following item/);
    const { encrypted_content: _, ...bare } = reasoning;
    expect(responsesTurnError({ store: false, input: [user, bare, call, output] })).toMatch(
      /not persisted when `store` is set to false/,
    );
  });

  it("answers a refused request with a 400 in OpenAI's shape, and a request without stream with the whole response", async () => {
    const post = (body: unknown) =>
      fetch(`${mock.openaiBaseURL}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await post({ model: 'm', input: [user, call] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      error: { message: 'No tool output found for function call c1.', type: 'invalid_request_error', param: null, code: null },
    });
    mock.script({ text: 'whole', thinking: 'why', usage: { input: 5, output: 7, cacheRead: 3, reasoning: 2 } });
    const whole = await (await post({ model: 'm', input: [user], include: ['reasoning.encrypted_content'] })).json();
    expect(whole).toMatchObject({
      object: 'response',
      status: 'completed',
      output: [
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'why' }], encrypted_content: expect.any(String) },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'whole', annotations: [] }] },
      ],
      usage: {
        input_tokens: 8,
        input_tokens_details: { cached_tokens: 3 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 2 },
      },
    });
    expect(mock.requests.map((r) => r.format)).toEqual(['responses', 'responses']);
  });
});
