import { describe, expect, test } from 'vitest';
import { DEFAULT_PR_COMMAND, classifyLandFailure, expandPrArgs, firstHttpsUrl } from '../../src/git/pr-failure.js';
import type { LandFailure } from '../../src/git/pr-failure.js';

describe('classifyLandFailure: retry a push or pull-request command, report it, or take it as done', () => {
  test.each<[string, Partial<LandFailure>, 'exists' | 'transient' | 'hard']>([
    ['gh: a bad gateway', { output: 'HTTP 502: Bad Gateway (https://api.github.com/graphql)' }, 'transient'],
    ['gh: a rate limit on a 403', { output: 'HTTP 403: API rate limit exceeded for user' }, 'transient'],
    ['gh: forbidden', { output: 'HTTP 403: Resource not accessible by integration' }, 'hard'],
    ['gh: not logged in', { output: 'To get started with GitHub CLI, please run:  gh auth login' }, 'hard'],
    [
      'gh: no commits between',
      { output: 'pull request create failed: GraphQL: No commits between main and x' },
      'hard',
    ],
    [
      'gh: the pull request is already open',
      {
        output: 'a pull request for branch "ralph/t" into branch "main" already exists:\nhttps://github.com/a/b/pull/7',
      },
      'exists',
    ],
    ['killed by its timeout', { signal: 'SIGKILL', exitCode: null, output: '' }, 'transient'],
    ['an unknown failure is reported, not retried forever', { output: 'something odd' }, 'hard'],
    [
      'push: DNS',
      { stage: 'push', output: "fatal: unable to access 'https://x/': Could not resolve host: x" },
      'transient',
    ],
    ['push: hung up', { stage: 'push', output: 'fatal: the remote end hung up unexpectedly' }, 'transient'],
    ['push: rejected', { stage: 'push', output: ' ! [rejected]        x -> x (non-fast-forward)' }, 'hard'],
    [
      'push: no such remote',
      { stage: 'push', output: "fatal: 'origin' does not appear to be a git repository" },
      'hard',
    ],
    ['push: credentials', { stage: 'push', output: "fatal: Authentication failed for 'https://x/'" }, 'hard'],
    [
      'push: 403 over https',
      { stage: 'push', output: "fatal: unable to access 'https://x/': The requested URL returned error: 403" },
      'hard',
    ],
    [
      'push: "already exists" is not a pull request',
      { stage: 'push', output: 'a pull request for branch x already exists' },
      'hard',
    ],
  ])('%s', (_, failure, expected) => {
    expect(classifyLandFailure({ stage: 'command', exitCode: 1, signal: null, output: '', ...failure })).toBe(expected);
  });
});

describe('the pull-request command', () => {
  test('the default is gh pr create --fill with the branch and base filled in', () => {
    expect([
      DEFAULT_PR_COMMAND.command,
      ...expandPrArgs(DEFAULT_PR_COMMAND.args, { branch: 'ralph/t', base: 'main', title: 'T', remote: 'origin' }),
    ]).toEqual(['gh', 'pr', 'create', '--fill', '--head', 'ralph/t', '--base', 'main']);
  });

  test('placeholders inside arguments, unknown ones left alone', () => {
    expect(
      expandPrArgs(['--title={title}', '{remote}/{branch}', '{other}'], {
        branch: 'b',
        base: 'm',
        title: 'Fix it',
        remote: 'up',
      }),
    ).toEqual(['--title=Fix it', 'up/b', '{other}']);
  });

  test.each([
    ['gh prints the URL alone', 'https://github.com/acme/shop/pull/42\n', 'https://github.com/acme/shop/pull/42'],
    [
      'in a sentence, trailing period dropped',
      'Created https://gitlab.example/x/-/merge_requests/3.\n',
      'https://gitlab.example/x/-/merge_requests/3',
    ],
    ['the first of two', 'see https://a.example/1 and https://b.example/2', 'https://a.example/1'],
    ['plain http is not taken', 'http://insecure.example/1', null],
    ['none', 'done', null],
  ])('URL: %s', (_, text, url) => {
    expect(firstHttpsUrl(text)).toBe(url);
  });
});
