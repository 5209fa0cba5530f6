import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ChildOutcome, type ChildRunRequest, JobManager, isEnded } from '../../../src/core/jobs/job-manager.js';
import type { Message } from '../../../src/core/providers/types.js';
import { recoverJobs } from '../../../src/core/session/job-recovery.js';
import { JobRecords } from '../../../src/core/session/job-records.js';
import { readStoredJobs, storedJobIds } from '../../../src/core/session/job-store.js';
import { sessionPaths } from '../../../src/core/session/store.js';
import { TranscriptWriter, readTranscript } from '../../../src/core/session/transcript.js';
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
  /** Every delivery in order: `notice:sub-1` or `poll:sub-1`; `end:`, `resume:` mark a run's end and a new run. */
  log: string[];
}

/** Where the process dies: before step `step`, or in that step's boundary, after the notice joined the transcript but before the manager heard. */
interface Crash {
  step: number;
  midBoundary: boolean;
}

/** One life of the session process: its manager and what only it holds in memory. */
interface Life {
  manager: JobManager;
  running: Map<string, (o: ChildOutcome) => void>;
  shells: Map<string, ReturnType<typeof fakeShell>>;
  alive: boolean;
}

async function runInterleaving(seed: number, steps: number, crash?: Crash): Promise<{ seen: Seen; manager: JobManager }> {
  const random = prng(seed);
  const pick = <T>(items: T[]): T | undefined => (items.length ? items[Math.floor(random() * items.length)] : undefined);
  const clock = new FakeClock();
  const maxConcurrent = 1 + Math.floor(random() * 3);
  const task = (id: string): Message => ({ role: 'user', content: [{ type: 'text', text: `task of ${id}` }] });
  // The durable store, as a session keeps it: the parent's transcript and the job ledger beside it.
  const paths = sessionPaths(mkdtempSync(path.join(os.tmpdir(), 'outrider-delivery-')), 'session');
  const session = { id: 'session', cwd: os.tmpdir(), provider: 'anthropic', model: 'm' };
  const parent = crash ? new TranscriptWriter(paths.transcript, { ...session, sessionId: session.id }, { env: {} }) : undefined;
  const store = () =>
    crash
      ? new JobRecords({
          paths,
          session,
          env: {},
          scrub: (text) => text,
          warn: (text) => {
            throw new Error(`seed ${seed}: ${text}`);
          },
          events: { publish: () => {} },
        })
      : undefined;

  const newLife = (records: JobRecords | undefined): Life => {
    const life: Life = { running: new Map(), shells: new Map(), alive: true } as Life;
    life.manager = new JobManager({
      maxConcurrent,
      pollTimeoutMs: 1000,
      now: clock.now,
      timers: clock,
      // As the session does: the store first, then whoever listens. A dead process writes nothing.
      emit: (event) => {
        if (life.alive) records?.record(event);
      },
      run: (request: ChildRunRequest) =>
        new Promise<ChildOutcome>((resolve) => {
          life.running.set(request.id, resolve);
          request.signal.addEventListener('abort', () => {
            life.running.delete(request.id);
            resolve({ status: 'done', text: 'after abort', messages: [task(request.id)] });
          });
        }),
    });
    return life;
  };
  let life = newLife(store());
  const seen: Seen = { log: [] };
  const polls = new Set<Promise<void>>();
  const interrupters = new Set<AbortController>();
  const activePollIds: string[] = [];

  // The parent's history. Between steps it is cloned (a fork's snapshot, a transcript read
  // back) or compacted, and a notice may be copied before it joins: delivery must not care.
  let history: Message[] = [];
  const boundary = (options: { dieBeforeConfirm?: boolean } = {}) => {
    const messages = life.manager.boundaryMessages().map((m) => (random() < 0.5 ? structuredClone(m) : m));
    for (const m of messages) {
      // Joined the history, and so the transcript, the model reads it: delivered, whatever happens next.
      parent?.append(m);
      history.push(m);
      const text = (m.content[0] as { text: string }).text;
      for (const id of m.noticeFor ?? []) {
        expect(text, `seed ${seed}: the notice names ${id}`).toContain(id);
        seen.log.push(`notice:${id}`);
      }
      if (options.dieBeforeConfirm) return;
      life.manager.confirm(m);
    }
    // Invariant: after a boundary, every ended done/error job no poll waits on has reached the model.
    const waitedOn = new Set(activePollIds);
    for (const job of life.manager.list()) {
      if (job.state !== 'done' && job.state !== 'error') continue;
      if (waitedOn.has(job.id)) continue;
      const reached = seen.log.includes(`notice:${job.id}`) || seen.log.includes(`poll:${job.id}`);
      expect(reached, `seed ${seed}: ${job.id} ended ${job.state} but was not delivered at a boundary`).toBe(true);
    }
  };

  /** kill -9: the process is gone with whatever it held; a new one resumes from the store alone. */
  const die = async () => {
    const old = life;
    old.alive = false;
    const read = readStoredJobs(paths, readTranscript(paths.transcript).notices);
    // The store is the source of truth: every job the manager knew is there, in the state it was in.
    for (const job of old.manager.list()) {
      const stored = read.find((s) => s.job.id === job.id);
      expect(stored, `seed ${seed}: ${job.id} is in the store`).toBeDefined();
      if (isEnded(job.state)) expect(stored!.job.state, `seed ${seed}: ${job.id}'s state`).toBe(job.state);
      else expect(stored!.cut, `seed ${seed}: ${job.id} was ${job.state}, so cut off`).toBe(true);
    }
    const { jobs, warnings } = await recoverJobs(read, { paths, sessionId: 'session', cwd: os.tmpdir(), env: {} });
    expect(warnings).toEqual([]);
    for (const { job } of jobs) if (job.interrupted && !isEnded(old.manager.get(job.id).state)) seen.log.push(`end:${job.id}`);
    // Polls and interrupts belonged to the dead process's turns.
    activePollIds.length = 0;
    interrupters.clear();
    life = newLife(store());
    life.manager.restore(jobs, { takenIds: storedJobIds(paths) });
  };

  for (let step = 0; step < steps; step += 1) {
    if (crash && step === crash.step) {
      // Every callback of the last step has run: the crash falls between two steps, not inside one.
      await settle();
      if (crash.midBoundary) boundary({ dieBeforeConfirm: true });
      await die();
    }
    const { manager, running, shells } = life;
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
        const owner = life;
        interrupters.add(controller);
        activePollIds.push(job.id);
        const p = manager.poll(job.id, controller.signal).then((result) => {
          // A poll of a dead process returns to nobody.
          if (owner !== life) return;
          activePollIds.splice(activePollIds.indexOf(job.id), 1);
          interrupters.delete(controller);
          if (result.kind === 'ended' && (result.job.state === 'done' || result.job.state === 'error')) {
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
  const { manager, running, shells } = life;
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
  parent?.close();
  return { seen, manager };
}

/** Checks one interleaving's log: each run of each job reached the model once, never a stopped one, never a notice after its poll. */
function expectExactlyOnce(
  label: string,
  seen: Seen,
  manager: JobManager,
): { delivered: number; resumes: number; shells: number } {
  let delivered = 0;
  let shells = 0;
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
    expect(last.includes('notice') || last.includes('poll'), `${label}: ${job.id}'s last run never reached the model`).toBe(true);
    delivered += 1;
    if (job.kind === 'shell') shells += 1;
  }
  expect(manager.undelivered(), label).toEqual([]);
  return { delivered, resumes: seen.log.filter((e) => e.startsWith('resume:')).length, shells };
}

describe('completion delivery, as a property over random interleavings', () => {
  it('delivers every done/error run of a job exactly once (a message resumes it for another), sub-agents and background shells alike, never a stopped one, never after its poll, however the history is copied or compacted', async () => {
    const seeds = 300;
    const totals = { delivered: 0, resumes: 0, shells: 0 };
    for (let seed = 1; seed <= seeds; seed += 1) {
      const { seen, manager } = await runInterleaving(seed, 60);
      const counts = expectExactlyOnce(`seed ${seed}`, seen, manager);
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts[key];
    }
    // The interleavings must exercise real deliveries, not only stops.
    expect(totals.delivered).toBeGreaterThan(seeds);
    expect(totals.resumes).toBeGreaterThan(seeds / 2);
    expect(totals.shells).toBeGreaterThan(seeds / 2);
  });

  it('a crash between any two steps (or between a notice joining the transcript and the manager hearing of it) loses no delivery and repeats none: the next life restores from the store alone', async () => {
    const seeds = 150;
    const totals = { delivered: 0, resumes: 0, shells: 0 };
    let interrupted = 0;
    for (let seed = 1; seed <= seeds; seed += 1) {
      const random = prng(seed * 7919);
      const crash: Crash = { step: 1 + Math.floor(random() * 58), midBoundary: random() < 0.3 };
      const { seen, manager } = await runInterleaving(seed, 60, crash);
      const counts = expectExactlyOnce(
        `seed ${seed}, crash before step ${crash.step}${crash.midBoundary ? ' mid-boundary' : ''}`,
        seen,
        manager,
      );
      for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += counts[key];
      interrupted += manager.list().filter((job) => job.interrupted).length;
    }
    expect(totals.delivered).toBeGreaterThan(seeds);
    expect(totals.resumes).toBeGreaterThan(seeds / 4);
    expect(totals.shells).toBeGreaterThan(seeds / 4);
    // Crashes must cut real jobs off, not only fall between idle steps.
    expect(interrupted).toBeGreaterThan(seeds / 2);
  });
});
