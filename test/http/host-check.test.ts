import { describe, expect, test } from 'vitest';
import { hostEntryProblem, parseHost } from '../../src/config/http-listen.js';
import {
  allowedHosts,
  connectionsCheckingIntervalMs,
  hostAllowed,
  misdirectedText,
} from '../../src/http/host-check.js';

describe('the Host check', () => {
  const loopback = allowedHosts('127.0.0.1', 8377, []);

  test.each([
    // header, answered
    ['127.0.0.1:8377', true],
    ['localhost:8377', true],
    ['LOCALHOST:8377', true],
    ['[::1]:8377', true],
    [' 127.0.0.1:8377 ', true],
    ['127.0.0.1', false], // port 80
    ['127.0.0.1:8378', false],
    ['localhost:80', false],
    ['evil.example', false],
    ['evil.example:8377', false],
    ['127.0.0.1.evil.example:8377', false],
    ['localhost.:8377', false],
    ['127.0.0.2:8377', false],
    ['[::1]', false],
    ['::1:8377', false],
    ['127.0.0.1:8377/x', false],
    ['user@127.0.0.1:8377', false],
    ['', false],
    [undefined, false],
  ])('listening on 127.0.0.1:8377, Host %s: %s', (header, answered) => {
    expect(hostAllowed(header, loopback, 80)).toBe(answered);
  });

  test.each([
    // listen host, port, extra, header, default port, answered
    ['0.0.0.0', 8377, [], '0.0.0.0:8377', 80, false], // every address is no name
    ['0.0.0.0', 8377, ['wiggum.example.com'], 'wiggum.example.com', 443, true], // any port
    ['0.0.0.0', 8377, ['wiggum.example.com'], 'wiggum.example.com:9999', 443, true],
    ['0.0.0.0', 8377, ['wiggum.example.com:443'], 'wiggum.example.com', 443, true],
    ['0.0.0.0', 8377, ['wiggum.example.com:443'], 'wiggum.example.com:8377', 443, false],
    ['192.168.1.5', 8377, [], '192.168.1.5:8377', 443, true], // the address it listens on
    ['::1', 8377, [], '[::1]:8377', 80, true],
    ['::', 8377, [], '[::]:8377', 80, false],
    ['127.0.0.1', 0, [], '127.0.0.1:0', 80, true], // whatever port it was given
  ] as const)(
    'listening on %s:%i with hosts %j, Host %s (default port %i): %s',
    (host, port, extra, header, def, ok) => {
      expect(hostAllowed(header, allowedHosts(host, port, extra), def)).toBe(ok);
    },
  );

  test.each([
    ['wiggum.example.com', { name: 'wiggum.example.com', port: null }],
    ['Wiggum.Example.com:8443', { name: 'wiggum.example.com', port: 8443 }],
    ['[::1]:1', { name: '[::1]', port: 1 }],
    ['host:65536', null],
    ['a b', null],
    ['', null],
    ['http://x', null],
  ])('parseHost(%j)', (text, parsed) => {
    expect(parseHost(text)).toEqual(parsed);
  });

  test('a config entry that is no host is said, and the refusal says what it answers to', () => {
    expect(hostEntryProblem('https://x.example/')).toMatch(/hosts: .* is not a host name/);
    expect(hostEntryProblem('x.example:8443')).toBeNull();
    expect(misdirectedText(loopback)).toContain('127.0.0.1:8377, localhost:8377, [::1]:8377');
  });

  test.each([
    // header timeout, checking interval
    [10_000, 1000],
    [1000, 100],
    [100, 50],
    [600_000, 1000],
  ])('a header timeout of %i ms is looked at every %i ms', (timeout, interval) => {
    expect(connectionsCheckingIntervalMs(timeout)).toBe(interval);
  });
});
