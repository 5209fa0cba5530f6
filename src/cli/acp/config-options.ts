/**
 * The session's configuration options as ACP offers them (`configOptions`, `session/set_config_option`):
 * the model the parent's next turns run on, from the catalogue of the session's provider, as
 * `/model` switches it in the TUI.
 */
import type { SessionConfigOption } from '@agentclientprotocol/sdk/unstable';
import type { OpenedSession } from '../../core/index.js';

/** The option id of the model selector. */
export const MODEL_OPTION = 'model';

/** The options now: one `select` of the models, the current one selected. */
export function configOptions(opened: Pick<OpenedSession, 'model' | 'models'>): SessionConfigOption[] {
  return [
    {
      type: 'select',
      id: MODEL_OPTION,
      name: 'Model',
      description: 'The model the next turns run on; sub-agents started after a change that inherit follow it',
      category: 'model',
      currentValue: opened.model,
      options: opened.models().map((entry) => ({
        value: entry.id,
        name: entry.aliases.length ? `${entry.id} (${entry.aliases.join(', ')})` : entry.id,
        description: `${entry.info.contextWindow.toLocaleString('en-US')}-token window${priceText(entry.info)}`,
      })),
    },
  ];
}

/** Sets option `configId` to `value`; the reason when it cannot (an unknown option, a model the provider cannot serve). */
export function setConfigOption(
  opened: Pick<OpenedSession, 'switchModel'>,
  configId: string,
  value: unknown,
): string | undefined {
  if (configId !== MODEL_OPTION) return `unknown configuration option "${configId}": the one offered is "${MODEL_OPTION}"`;
  if (typeof value !== 'string') return 'the model option takes a model id';
  const outcome = opened.switchModel(value);
  return outcome.ok ? undefined : outcome.error;
}

function priceText(info: { inputPrice?: number; outputPrice?: number }): string {
  if (info.inputPrice === undefined || info.outputPrice === undefined) return '';
  return `, $${info.inputPrice} / $${info.outputPrice} per million tokens in / out`;
}
