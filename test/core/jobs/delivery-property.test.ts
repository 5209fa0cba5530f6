import { describe, expect, it } from 'vitest';
import { type ChildOutcome, type ChildRunRequest, JobManager, isEnded } from '../../../src/core/jobs/job-manager.js';
import type { Message } from '../../../src/core/providers/types.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { fakeShell } from '../../support/fake-shell.js';

/** mulberry32: a small seeded PRNG so every interleaving can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Seen {
  notices: string[][];
  /** Ids whose result a poll returned to the model, in order of return. */
  polled: string[];
  /** Every delivery in order: `notice:sub-1` or `poll:sub-1`. */
  log: string[];
}

async function runInterleaving(seed: number, steps: number): Promise<{ seen: Seen; manager: JobManager }> {
  const random = prng(seed);
  const pick = <T>(items: T[]): T | undefined => (items.length ? items[Math.floor(random() * items.length)] : undefined);
  const clock = new FakeClock();
  const running = new Map<string, (o: ChildOutcome) => void>();
  const manager = new JobManager({
    maxConcurrent: 1 + Math.floor(random() * 3),
    pollTimeoutMs: 1000,
    now: clock.now,
    timers: clock,
    run: (request: ChildRunRequest) =>
      new Promise<ChildOutcome>((resolve) => {
        running.set(request.id, resolve);
        request.signal.addEventListener('abort', () => {
          running.delete(request.id);
          resolve({ status: 'done', text: 'after abort', messages: [task(request.id)] });
        });
      }),
  });
  // Background shells share the ids' delivery: they end by exiting (0 or not) or by a stop.
  const shells = new Map<string, ReturnType<typeof fakeShell>>();
  const task = (id: string): Message => ({ role: 'user', content: [{ type: 'text', text: `task of ${id}` }] });
  const seen: Seen = { notices: [], polled: [], log: [] };
  const polls = new Set<Promise<void>>();
  const interrupters = new Set<AbortController>();

  const record = (messages: Message[]) => {
    for (const m of messages) {
      const text = (m.content[0] as { text: string }).text;
      const ids = [...text.matchAll(/(?:sub|sh)-\d+/g)].map((x) => x[0]);
      const unique = [...new Set(ids)];
      seen.notices.push(unique);
      for (const id of unique) seen.log.push(`notice:${id}`);
    }
  };
  // The parent's history. Between steps it is cloned (a fork's snapshot, a transcript read
  // back) or compacted, and a notice may be copied before it joins: delivery must not care.
  let history: Message[] = [];
  const boundary = () => {
    const messages = manager.boundaryMessages().map((m) => (random() < 0.5 ? structuredClone(m) : m));
    for (const m of messages) {
      history.push(m);
      manager.confirm(m);
    }
    record(messages);
    // Invariant: after a boundary, every ended done/error job no poll waits on has reached the model.
    const waitedOn = new Set(activePollIds);
    for (const job of manager.list()) {
      if (job.state !== 'done' && job.state !== 'error') continue;
      if (waitedOn.has(job.id)) continue;
      const reached = seen.log.includes(`notice:${job.id}`) || seen.log.includes(`poll:${job.id}`);
      expect(reached, `seed ${seed}: ${job.id} ended ${job.state} but was not delivered at a boundary`).toBe(true);
    }
  };
  const activePollIds: string[] = [];

  for (let step = 0; step < steps; step += 1) {
    const r = random();
    const jobs = manager.list();
    const active = jobs.filter((j) => !isEnded(j.state));
    if (r < 0.2) {
      if (random() < 0.3) {
        const shell = fakeShell();
        const job = manager.adoptShell(shell.handle, { command: `command ${step}` });
        shells.set(job.id, shell);
      } else {
        manager.reserve([{ type: 'tool_use', id: `c${step}`, name: 'agent_start', input: {} }]);
        manager.start(`task ${step}`, { callId: `c${step}` });
      }
    } else if (r < 0.4) {
      const id = pick([...running.keys(), ...shells.keys()]);
      const shell = id ? shells.get(id) : undefined;
      if (shell) {
        shells.delete(id!);
        if (random() < 0.5) shell.print(`output of ${id}\n`);
        // A shell stopped meanwhile has ended already: its exit changes nothing.
        if (!isEnded(manager.get(id!).state)) seen.log.push(`end:${id}`);
        shell.exit(random() < 0.7 ? 0 : 2);
      } else if (id) {
        const resolve = running.get(id)!;
        running.delete(id);
        const outcome: ChildOutcome =
          random() < 0.75 ? { status: 'done', text: `report ${id}` } : { status: 'error', text: '', error: 'limit' };
        resolve({ ...outcome, messages: [task(id)] });
        seen.log.push(`end:${id}`);
      }
    } else if (r < 0.47) {
      const job = pick(active);
      if (job) manager.stop(job.id);
    } else if (r < 0.62) {
      const job = pick(jobs);
      if (job) {
        const controller = new AbortController();
        interrupters.add(controller);
        activePollIds.push(job.id);
        const p = manager.poll(job.id, controller.signal).then((result) => {
          activePollIds.splice(activePollIds.indexOf(job.id), 1);
          interrupters.delete(controller);
          if (result.kind === 'ended' && (result.job.state === 'done' || result.job.state === 'error')) {
            seen.polled.push(job.id);
            seen.log.push(`poll:${job.id}`);
          }
        });
        polls.add(p);
        void p.finally(() => polls.delete(p));
      }
    } else if (r < 0.72) {
      clock.advance(Math.floor(random() * 1500));
    } else if (r < 0.77) {
      const controller = pick([...interrupters]);
      controller?.abort();
    } else if (r < 0.82) {
      // A turn interrupted after the notice was handed out but before it was sent.
      manager.boundaryMessages();
      manager.interrupted();
    } else if (r < 0.835) {
      // A message to a job that ended: it runs again and owes a completion of its own.
      const job = pick(jobs.filter((j) => isEnded(j.state) && j.kind !== 'shell'));
      if (job) {
        manager.send(job.id, 'one more thing');
        seen.log.push(`resume:${job.id}`);
      }
    } else if (r < 0.85) {
      const kind = random();
      if (kind < 0.4) history = structuredClone(history);
      else if (kind < 0.8) history = [{ role: 'user', content: [{ type: 'text', text: 'summary' }] }, ...history.slice(-2)];
      else {
        // A message of the history handed to the manager again (a copy re-appended): no second delivery.
        const again = pick(history);
        if (again) manager.confirm(structuredClone(again));
      }
    } else {
      await settle(1);
      boundary();
    }
    await settle(1);
  }

  // Wind down: finish everything, let pollers time out, and take the last boundary.
  while (manager.active().length > 0) {
    for (const [id, resolve] of running) {
      running.delete(id);
      resolve({ status: 'done', text: `report ${id}`, messages: [task(id)] });
      seen.log.push(`end:${id}`);
    }
    for (const [id, shell] of shells) {
      shells.delete(id);
      if (!isEnded(manager.get(id).state)) seen.log.push(`end:${id}`);
      shell.exit(0);
    }
    await settle();
  }
  clock.advance(5000);
  await Promise.all(polls);
  await settle();
  boundary();
  return { seen, manager };
}

describe('completion delivery, as a property over random interleavings', () => {
  it('delivers every done/error run of a job exactly once (a message resumes it for another), sub-agents and background shells alike, never a stopped one, never after its poll, however the history is copied or compacted', async () => {
    const seeds = 300;
    let delivered = 0;
    let resumes = 0;
    let shellsDelivered = 0;
    for (let seed = 1; seed <= seeds; seed += 1) {
      const { seen, manager } = await runInterleaving(seed, 60);
      resumes += seen.log.filter((e) => e.startsWith('resume:')).length;
      const label = `seed ${seed}`;
      for (const job of manager.list()) {
        // Each run of a job (a message resumes it) owes its own delivery: check run by run.
        const runs: string[][] = [[]];
        for (const entry of seen.log) {
          if (entry === `resume:${job.id}`) runs.push([]);
          else if (entry.endsWith(`:${job.id}`)) runs.at(-1)!.push(entry.slice(0, entry.indexOf(':')));
        }
        for (const [index, run] of runs.entries()) {
          const notices = run.filter((e) => e === 'notice').length;
          const polled = run.filter((e) => e === 'poll').length;
          const where = `${label}: ${job.id} run ${index + 1}`;
          expect(notices, `${where} announced ${notices} times`).toBeLessThanOrEqual(1);
          // A notice invites a poll, so poll-after-notice is normal; a notice after a poll is not.
          if (notices && polled)
            expect(run.indexOf('notice'), `${where} announced after its poll returned`).toBeLessThan(run.indexOf('poll'));
          if (notices || polled)
            expect(
              run.includes('end') || index < runs.length - 1 || job.state !== 'aborted',
              `${where} delivered though stopped`,
            ).toBe(true);
        }
        const last = runs.at(-1)!;
        if (job.state === 'aborted') {
          expect(last.includes('notice') && !last.includes('end'), `${label}: stopped ${job.id} was announced`).toBe(false);
          continue;
        }
        expect(isEnded(job.state), `${label}: ${job.id} still ${job.state}`).toBe(true);
        expect(last.includes('notice') || last.includes('poll'), `${label}: ${job.id}'s last run never reached the model`).toBe(
          true,
        );
        delivered += 1;
        if (job.kind === 'shell') shellsDelivered += 1;
      }
      expect(manager.undelivered(), label).toEqual([]);
    }
    // The interleavings must exercise real deliveries, not only stops.
    expect(delivered).toBeGreaterThan(seeds);
    expect(resumes).toBeGreaterThan(seeds / 2);
    expect(shellsDelivered).toBeGreaterThan(seeds / 2);
  });
});
