import { describe, expect, it } from 'vitest';
import { channelKeys, queueForLabels, queuePrefix, queuesForWorker, remoteJobId } from '../../../src/core/remote/queue-names.js';
import { describeRedisUrl, parseRedisUrl, redactRedisText } from '../../../src/core/remote/redis-url.js';

describe('queue names', () => {
  it('every key lives under the namespace; labels route to their own queue', () => {
    expect(queuePrefix()).toBe('outrider:default');
    expect(queuePrefix('team-a')).toBe('outrider:team-a');
    expect(() => queuePrefix('a:b')).toThrow(/invalid queue namespace "a:b"/);
    expect(queueForLabels([])).toBe('jobs');
    expect(queueForLabels(['gpu'])).toBe('label-gpu');
    expect(queueForLabels(['gpu', 'big', 'gpu'])).toBe('label-big+gpu');
    expect(() => queueForLabels(['has space'])).toThrow(/invalid label/);
  });

  it('a worker consumes the default queue and one per subset of its labels', () => {
    expect(queuesForWorker([])).toEqual(['jobs']);
    expect(queuesForWorker(['b', 'a'])).toEqual(['jobs', 'label-a', 'label-b', 'label-a+b']);
    // A job's queue is among a worker's exactly when the worker has all the job's labels.
    expect(queuesForWorker(['a', 'b', 'c'])).toContain(queueForLabels(['c', 'a']));
    expect(queuesForWorker(['a'])).not.toContain(queueForLabels(['a', 'b']));
    expect(() => queuesForWorker(['a', 'b', 'c', 'd', 'e'])).toThrow(/at most 4 labels/);
  });

  it('job ids and channel keys', () => {
    expect(remoteJobId('20250101-120000-abc123', 'sub-2.1', 'ff00')).toBe('20250101-120000-abc123.sub-2.1.ff00');
    expect(() => remoteJobId('s', 'a:b', 'x')).toThrow(/unusable id/);
    expect(channelKeys('outrider:default', 'x.sub-1.y')).toEqual({
      out: 'outrider:default:run:x.sub-1.y:out',
      control: 'outrider:default:run:x.sub-1.y:control',
    });
  });
});

describe('queue addresses', () => {
  it('describes a URL without its password', () => {
    expect(describeRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(describeRedisUrl('redis://:s3cr3t-pass@host:6380/2')).toBe('redis://:***@host:6380/2');
    expect(describeRedisUrl('rediss://alice:s3cr3t-pass@host')).toBe('rediss://alice:***@host');
    expect(describeRedisUrl('redis://alice@host')).toBe('redis://alice@host');
    expect(describeRedisUrl('redis://:p%40ss@host')).not.toContain('p%40ss');
    expect(describeRedisUrl('not a url s3cr3t')).toBe('(unreadable address)');
  });

  it('parses redis:// and rediss:// (TLS), with the password and database', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6390').options).toEqual({ host: '127.0.0.1', port: 6390 });
    const tls = parseRedisUrl('rediss://bob:p%40ss@cache.example.com/3');
    expect(tls.options).toEqual({
      host: 'cache.example.com',
      port: 6379,
      db: 3,
      username: 'bob',
      password: 'p@ss',
      tls: { servername: 'cache.example.com' },
    });
    expect(tls.description).toBe('rediss://bob:***@cache.example.com/3');
  });

  it('refuses what is not a queue address, without printing a password', () => {
    expect(() => parseRedisUrl('http://:hunter2pass@host')).toThrow(/use redis:\/\/ \(or rediss:\/\/ for TLS\)/);
    expect(() => parseRedisUrl('http://:hunter2pass@host')).not.toThrow(/hunter2pass/);
    expect(() => parseRedisUrl('redis://:hunter2pass@host/abc')).toThrow(/database number/);
    try {
      parseRedisUrl('redis://:hunter2pass@host/abc');
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2pass');
    }
  });

  it('redacts the password and the URL from any text, e.g. a client error', () => {
    const url = 'redis://:hunter2pass@10.0.0.9:6379';
    const address = parseRedisUrl(url);
    const text = redactRedisText(`connect to ${url} failed; AUTH hunter2pass rejected`, address);
    expect(text).not.toContain('hunter2pass');
    expect(text).toContain('redis://:***@10.0.0.9:6379');
  });
});
