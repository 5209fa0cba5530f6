/**
 * The part of the Anthropic SDK outrider uses: its base client with the Messages resource, and
 * its error classes. anthropic.ts imports this module on the first model call, never before.
 *
 * Not `new Anthropic()`: that client builds every resource (beta, files, models, skills,
 * organization …), and a bundle that can reach it keeps them all: about 390 KB of the SDK
 * compiled on every run, for one endpoint. Imported statically from here (the SDK's modules are
 * free of side effects), the bundle keeps only what these imports reach, about a third of it.
 */
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';

export { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from '@anthropic-ai/sdk/core/error';

/** A client that speaks the Messages API, like `Anthropic` without its other resources. */
export class MessagesClient extends BaseAnthropic {
  readonly messages = new Messages(this);
}
