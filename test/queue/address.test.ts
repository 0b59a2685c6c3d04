import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { parseQueueUrl } from '../../src/queue/address.js';

describe('parseQueueUrl reads an address', () => {
  test.each([
    ['redis://127.0.0.1:6379', { host: '127.0.0.1', port: 6379, db: 0, tls: false, shown: 'redis://127.0.0.1:6379' }],
    ['redis://127.0.0.1:6379/', { host: '127.0.0.1', port: 6379, db: 0, tls: false, shown: 'redis://127.0.0.1:6379' }],
    [
      'redis://queue.lan:7000/3',
      { host: 'queue.lan', port: 7000, db: 3, tls: false, shown: 'redis://queue.lan:7000/3' },
    ],
    ['  redis://h:1/0  ', { host: 'h', port: 1, db: 0, tls: false, shown: 'redis://h:1' }],
    ['redis://[::1]:6380', { host: '::1', port: 6380, db: 0, tls: false, shown: 'redis://[::1]:6380' }],
    [
      'redis://:s3cret@h:6379/2',
      { host: 'h', port: 6379, db: 2, password: 's3cret', tls: false, shown: 'redis://:***@h:6379/2' },
    ],
    [
      'redis://wiggum:p%40ss@h:6379',
      {
        host: 'h',
        port: 6379,
        db: 0,
        username: 'wiggum',
        password: 'p@ss',
        tls: false,
        shown: 'redis://wiggum:***@h:6379',
      },
    ],
    [
      'redis://wiggum@h:6379',
      { host: 'h', port: 6379, db: 0, username: 'wiggum', tls: false, shown: 'redis://wiggum@h:6379' },
    ],
    [
      'rediss://:s3cret@redis.example.com:6380',
      {
        host: 'redis.example.com',
        port: 6380,
        db: 0,
        password: 's3cret',
        tls: true,
        shown: 'rediss://:***@redis.example.com:6380',
      },
    ],
  ])('%s', (text, expected) => {
    expect(parseQueueUrl(text)).toStrictEqual(expected);
  });
});

describe('parseQueueUrl refuses, saying why and never the password', () => {
  test.each([
    ['127.0.0.1:6379', 'is not a URL'],
    ['localhost', 'is not a URL'],
    ['', 'is not a URL'],
    ['http://h:6379', 'scheme http, not redis or rediss'],
    ['rediss://h', 'names no port'],
    ['redis://h', 'names no port'],
    ['redis://:pw@h', 'names no port'],
    ['redis://h:0', 'outside 1-65535'],
    ['redis://h:6379/queue', 'path /queue, which is not a database number'],
    ['redis://h:6379/1/2', 'path /1/2, which is not a database number'],
    ['redis://h:6379/-1', 'path /-1, which is not a database number'],
    ['redis://h:6379?db=2', 'query or fragment'],
    ['redis://h:6379#x', 'query or fragment'],
    ['redis://u:s3cret@h:6379/x', 'path /x'],
    ['redis://u:s3/cr@et@h', 'redis://u:***@h is not a URL'],
  ])('%s: %s', (text, why) => {
    let thrown: unknown;
    try {
      parseQueueUrl(text);
    } catch (error) {
      thrown = error;
    }
    expect(isWiggumError(thrown, 'E_QUEUE_URL')).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toContain(why);
    expect(message).toContain('redis://HOST:PORT');
    expect(message).not.toMatch(/s3cret|s3\/cr|pw@/);
    expect(JSON.stringify((thrown as { details: unknown }).details)).not.toMatch(/s3cret|s3\/cr|pw@/);
  });
});
