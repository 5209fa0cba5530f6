import { describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../../src/ui/approval-broker.js';

const request = (label: string, jobId?: string) => ({
  toolName: 'bash',
  label,
  args: {},
  reason: 'asks',
  ...(jobId ? { jobId } : {}),
});

describe('ApprovalBroker', () => {
  it('queues requests in order and resolves each with its answer', async () => {
    const broker = new ApprovalBroker();
    let changes = 0;
    broker.subscribe(() => (changes += 1));
    const first = broker.approver(request('one'), new AbortController().signal);
    const second = broker.approver(request('two', 'sub-1'), new AbortController().signal);
    expect(broker.pending().map((p) => p.request.label)).toEqual(['one', 'two']);
    const key = broker.pending()[0]!.key;
    expect(broker.answer(key, 'allow-always')).toBe(true);
    expect(broker.answer(key, 'deny')).toBe(false);
    await expect(first).resolves.toBe('allow-always');
    expect(broker.pending().map((p) => p.request.jobId)).toEqual(['sub-1']);
    broker.answer(broker.pending()[0]!.key, 'deny');
    await expect(second).resolves.toBe('deny');
    expect(broker.pending()).toEqual([]);
    expect(changes).toBe(4);
  });

  it('drops a request whose signal aborts, and denies what is left on quit', async () => {
    const broker = new ApprovalBroker();
    const controller = new AbortController();
    const stopped = broker.approver(request('job'), controller.signal);
    const waiting = broker.approver(request('parent'), new AbortController().signal);
    controller.abort();
    await expect(stopped).resolves.toBe('deny');
    expect(broker.pending().map((p) => p.request.label)).toEqual(['parent']);
    broker.denyAll();
    await expect(waiting).resolves.toBe('deny');
    expect(broker.pending()).toEqual([]);
  });

  it('keeps the same pending array between changes (a stable snapshot for React)', () => {
    const broker = new ApprovalBroker();
    void broker.approver(request('x'), new AbortController().signal);
    expect(broker.pending()).toBe(broker.pending());
  });
});
