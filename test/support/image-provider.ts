import { createProvider } from '../../src/core/providers/create.js';
import type { StreamFn } from '../../src/core/providers/types.js';
import type { MockProvider } from './mock-provider.js';
import { recordingSleep } from './stream-helpers.js';

/** The three wires images travel on. */
export type ImageApi = 'anthropic' | 'chat' | 'responses';

/** The mock is no vendor's server, so its model is said to take images (settings' models.<id>.images). */
export const TAKES_IMAGES = { 'test-model': { images: true } };

/** A provider on `api` against the mock, whose model takes images; retries do not wait. */
export function imageProvider(mock: MockProvider, api: ImageApi): StreamFn {
  const sleep = recordingSleep().sleep;
  if (api === 'anthropic') {
    return createProvider({
      provider: 'anthropic',
      apiKey: 'sk-ant-test',
      baseURL: mock.anthropicBaseURL,
      sleep,
      models: TAKES_IMAGES,
    });
  }
  return createProvider({
    provider: 'openai',
    apiKey: 'sk-test',
    baseURL: mock.openaiBaseURL,
    openaiApi: api,
    sleep,
    models: TAKES_IMAGES,
  });
}
