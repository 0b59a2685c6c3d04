import { describe, expect, test } from 'vitest';
import { admits, parseAllowEntry } from '../../src/config/allow-list.js';
import type { AllowedEndpoint } from '../../src/config/allow-list.js';

describe('parseAllowEntry', () => {
  test.each([
    ['api.anthropic.com', { host: 'api.anthropic.com', port: null }],
    ['API.OpenAI.com:443', { host: 'api.openai.com', port: 443 }],
    ['127.0.0.1:8080', { host: '127.0.0.1', port: 8080 }],
    ['localhost', { host: 'localhost', port: null }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
    ['[::1]', { host: '::1', port: null }],
  ])('%s', (text, endpoint) => {
    expect(parseAllowEntry(text)).toEqual(endpoint);
  });

  test.each([
    ['', 'not a host'],
    ['http://api.example.com', 'not a host'],
    ['api.example.com:0', 'no port'],
    ['api.example.com:65536', 'no port'],
    ['api.example.com:80:90', 'not a host'],
    ['::1', 'not a host'],
    ['-bad.example.com', 'not a host'],
    ['*.example.com', 'not a host'],
    ['[nothex]:80', 'not a host'],
  ])('%j is refused', (text, why) => {
    expect(parseAllowEntry(text)).toContain(why);
  });
});

describe('admits', () => {
  const allowed: AllowedEndpoint[] = [
    { host: 'api.anthropic.com', port: null },
    { host: '127.0.0.1', port: 8080 },
    { host: '::1', port: 9000 },
  ];
  test.each([
    ['api.anthropic.com', 443, true],
    ['API.anthropic.com.', 80, true],
    ['api.anthropic.com', 22, false],
    ['anthropic.com', 443, false],
    ['evil.api.anthropic.com', 443, false],
    ['127.0.0.1', 8080, true],
    ['127.0.0.1', 8081, false],
    ['localhost', 8080, false],
    ['[::1]', 9000, true],
    ['::1', 9000, true],
    ['::1', 443, false],
  ])('%s:%i → %s', (host, port, admitted) => {
    expect(admits(allowed, host, port)).toBe(admitted);
  });
});
