/** The parent's model as a session wires it: switched by `/model`, followed by the conversation, the transcript and the front ends. */
import type { ProviderConfig } from '../config/provider-config.js';
import type { Settings } from '../config/settings.js';
import type { Conversation } from '../loop/conversation.js';
import { costOf, modelInfo } from '../providers/models.js';
import type { Usage } from '../providers/types.js';
import type { EventStream } from './event-stream.js';
import { type ModelSettings, SessionModel, modelCatalogue, modelTarget } from './session-model.js';
import type { OpenedSession } from './opened-session.js';
import { type ExplicitModel, type RecordedModel, resumeModel } from './resumed-model.js';
import type { TranscriptWriter } from './transcript.js';

/** The answer's cap when the settings give none. */
const DEFAULT_MAX_TOKENS = 8192;

/**
 * The session's model, what the start should say of it, and the prices of usage (a job's model's,
 * or the parent's now). A resumed session goes back to the model it was last on (resumed-model.ts).
 */
export function openParentModel(
  providerConfig: Pick<ProviderConfig, 'provider' | 'model'>,
  settings: Pick<Settings, 'maxTokens' | 'models' | 'modelAliases' | 'effort'>,
  resumed?: { recorded: RecordedModel | undefined; explicit: ExplicitModel },
) {
  const modelSettings: ModelSettings = {
    provider: providerConfig.provider,
    maxTokens: settings.maxTokens ?? DEFAULT_MAX_TOKENS,
    models: settings.models,
    aliases: settings.modelAliases,
  };
  // Asked for an effort its model takes none of: said once at start, not sent.
  const { notice } = modelTarget(providerConfig.model, settings.effort, modelSettings);
  const model = new SessionModel(providerConfig.model, settings.effort, modelSettings);
  const restored = resumed ? resumeModel(model, resumed.recorded, resumed.explicit) : { switched: false, warnings: [] };
  // A restored model's own notes replace what the configured one's would have said.
  const warnings = restored.switched ? restored.warnings : [...(notice ? [notice] : []), ...restored.warnings];
  const priceOf = (usage: Usage, of?: string) => costOf(usage, of ? modelInfo(of, settings.models) : model.current().info);
  return { model, settings: modelSettings, priceOf, warnings };
}

/**
 * After each switch: the conversation calls the new model from its next turn, the transcript
 * notes it, and the front ends hear of it (`model_changed`).
 */
export function followModel(
  model: SessionModel,
  parts: { conversation: Conversation; transcript: TranscriptWriter; events: EventStream },
): void {
  model.onChange((target, notes) => {
    parts.conversation.retarget({
      model: target.model,
      maxTokens: target.maxTokens,
      ...(target.effort ? { effort: target.effort } : {}),
    });
    parts.transcript.event('model', { model: target.model, ...(target.effort ? { effort: target.effort } : {}) });
    parts.events.publish({
      type: 'model_changed',
      model: target.model,
      contextWindow: target.info.contextWindow,
      ...(target.effort ? { effort: target.effort } : {}),
    });
    // Every front end hears them: the TUI's /model, ACP's config option and the SDK's set_model alike.
    for (const text of notes) parts.events.publish({ type: 'notice', level: 'warn', text });
  });
}

/** What a front end reads of the parent's model. */
export type ModelFace = Pick<OpenedSession, 'model' | 'effort' | 'contextWindow' | 'modelLimits' | 'switchModel' | 'models'>;

/** The parent's model as a front end sees it, read at each use (a switch changes it). */
export function modelFace(model: SessionModel, settings: ModelSettings): ModelFace {
  return {
    get model() {
      return model.current().model;
    },
    get effort() {
      return model.current().effort;
    },
    get contextWindow() {
      return model.current().info.contextWindow;
    },
    get modelLimits() {
      const { contextWindow, maxOutput } = model.current().info;
      return { contextWindow, maxOutput };
    },
    switchModel: (asked, effort) => model.switchTo(asked, effort),
    models: () => modelCatalogue(model.current().model, settings),
  };
}
