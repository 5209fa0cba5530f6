import { describe, expect, it } from 'vitest';
import { openSessionQueue } from '../../../src/core/remote/session-queue.js';
import { useRedis } from '../../support/redis.js';

const startRedis = useRedis();

const base = {
  cwd: '/nowhere',
  sessionId: 's1',
  definitions: () => new Map(),
  secrets: [],
  env: {},
  notice: () => {},
};

describe("a session's queue", () => {
  it('without a shared git remote, refuses at start and says what to set', async () => {
    await expect(openSessionQueue({ ...base, settings: { url: 'redis://127.0.0.1:1' } })).rejects.toThrow(
      /set agents\.queue\.remote in your settings or pass --queue-remote <git-url>/,
    );
  });

  it('with Redis unreachable, refuses at start naming the address without its password', async () => {
    const failure = openSessionQueue({ ...base, settings: { url: 'redis://:hunter2-secret@127.0.0.1:1', remote: '/tmp/x.git' } });
    await expect(failure).rejects.toThrow(/127\.0\.0\.1:1/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });

  it('takes the parent’s sub-agents, not those kept local, nested ones or shells, and any to attach again', async () => {
    const redis = await startRedis();
    const queue = await openSessionQueue({ ...base, settings: { url: redis.url, remote: '/tmp/x.git' } });
    try {
      expect(queue.takes({ kind: 'sub' })).toBe(true);
      expect(queue.takes({ kind: 'sub', depth: 1 })).toBe(true);
      expect(queue.takes({ kind: 'sub', where: 'local' })).toBe(false);
      expect(queue.takes({ kind: 'sub', depth: 2 })).toBe(false);
      expect(queue.takes({ kind: 'shell' })).toBe(false);
      expect(queue.takes({ kind: 'sub', where: 'local', attach: { remoteId: 'q' } })).toBe(true);
    } finally {
      await queue.detach();
    }
  });
});
