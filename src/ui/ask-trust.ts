import { render } from 'ink';
import { createElement } from 'react';
import { needsTrustAnswer, recordTrustAnswer, reviewSetup, type SessionSetup, type SettingsReview } from '../core/index.js';
import type { EarlyInput } from '../start/early-input.js';
import { type TrustChoice, TrustPrompt } from './components/trust-prompt.js';

/**
 * Before the session opens: reads the settings, and when the project's file holds keys that
 * need trust and the user has not answered for them (or they changed since), asks, stores the
 * answer, and returns the setup carrying exactly the settings the user saw. Undefined: the
 * user quit. `--trust` asks nothing and stores nothing. Keys typed before the question shows
 * stay with `early` for the app's input: only a key pressed while it shows answers it.
 */
export async function settleTrust(setup: SessionSetup, early?: EarlyInput): Promise<SessionSetup | undefined> {
  const review = reviewSetup(setup);
  if (setup.trustProject || !needsTrustAnswer(review)) return { ...setup, review };
  const choice = await (early ? early.lend(() => askTrust(review)) : askTrust(review));
  if (choice === 'quit') return undefined;
  return { ...setup, review: recordTrustAnswer(review, choice) };
}

async function askTrust(review: SettingsReview): Promise<TrustChoice> {
  let answer: (choice: TrustChoice) => void = () => {};
  const answered = new Promise<TrustChoice>((resolve) => (answer = resolve));
  const instance = render(createElement(TrustPrompt, { review, onAnswer: (choice) => answer(choice) }), { exitOnCtrlC: false });
  const choice = await answered;
  instance.unmount();
  await instance.waitUntilExit();
  return choice;
}
