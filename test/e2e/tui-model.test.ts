import { describe, expect, it } from 'vitest';
import { useTui } from '../support/tmux.js';

/** `/model` in the built binary under tmux (issue 25): the list, a switch, a refusal; the next request on the new model. */
const tui = useTui();

describe('/model', () => {
  it('lists the models with windows and prices, switches the next turn, and refuses what the provider cannot serve', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'Answer on sonnet.' }, { text: 'Answer on opus.' });
    pane.type('first');
    await pane.screen(/Answer on sonnet\./);
    expect(tui.mock.requests.at(-1)!.body.model).toBe('claude-sonnet-5');

    pane.type('/model');
    const list = await pane.screen(/Switch with \/model <name\|n>/);
    expect(list).toMatch(/● +\d+\. claude-sonnet-5 \(sonnet\) +1M window · \$2 \/ \$10 per M in \/ out/);
    expect(list).toMatch(/claude-opus-5-5 \(opus\) +1M window · \$4 \/ \$20 per M in \/ out/);
    expect(list).not.toMatch(/gpt-/);

    pane.type('/model gpt-5.5');
    await pane.screen(/gpt-5\.5 is not served by the anthropic provider/);
    pane.type('/model 999');
    await pane.screen(/no model 999: \/model lists 1–\d+/);

    pane.type('/model opus high');
    const switched = await pane.screen(/model: claude-opus-5-5 · effort high \(1M window\) from the next turn/);
    // The footer names the model the next turn runs on.
    expect(switched).toMatch(/^(?!.*model: ).*claude-opus-5-5 · effort high/m);
    pane.type('second');
    await pane.screen(/Answer on opus\./);
    const last = tui.mock.requests.at(-1)!;
    expect(last.body.model).toBe('claude-opus-5-5');
    expect(last.body.output_config).toEqual({ effort: 'high' });
  });
});
