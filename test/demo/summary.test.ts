import { describe, expect, test } from 'vitest';
import { demoSummary } from '../../src/demo/summary.js';
import type { DemoEnd } from '../../src/demo/summary.js';

const END: DemoEnd = {
  vault: '.demo/vault',
  done: ['add-dark-mode.md', 'write-release-notes.md'],
  rejected: ['migrate-billing-db.md'],
  approved: [],
  exitCode: 0,
  interrupted: false,
  again: 'node dist/cli/main.js start --vault .demo/vault',
};

describe('demoSummary', () => {
  test.each<[string, Partial<DemoEnd>, string[]]>([
    [
      'ran to its end',
      {},
      [
        '',
        'wiggum demo: every task ran to its end; nothing is left in Approved/.',
        '  2 tasks went to Done/:',
        '    .demo/vault/Done/add-dark-mode.md',
        '    .demo/vault/Done/write-release-notes.md',
        '  1 task went to Rejected/ (each file ends with a report of why):',
        '    .demo/vault/Rejected/migrate-billing-db.md',
        '  the overview: .demo/vault/Dashboard.md',
        'The demo has exited. To watch the vault again (and drop tasks into Approved/):',
        '  node dist/cli/main.js start --vault .demo/vault',
      ],
    ],
    [
      'stopped by a Ctrl-C',
      { done: [], rejected: [], approved: ['a.md', 'b.md'], interrupted: true },
      [
        '',
        'wiggum demo: stopped; 2 tasks left in Approved/, checkpointed where they stopped.',
        '  0 tasks went to Done/',
        '  0 tasks went to Rejected/',
        '  the overview: .demo/vault/Dashboard.md',
        'To go on from the checkpoints: node dist/cli/main.js start --vault .demo/vault',
      ],
    ],
    [
      'the daemon failed',
      { done: [], rejected: [], approved: ['a.md'], exitCode: 2 },
      [
        '',
        'wiggum demo: the daemon exited with 2; see the log above.',
        '  0 tasks went to Done/',
        '  0 tasks went to Rejected/',
        '  the overview: .demo/vault/Dashboard.md',
        'To go on from the checkpoints: node dist/cli/main.js start --vault .demo/vault',
      ],
    ],
  ])('%s', (_name, change, expected) => {
    expect(demoSummary({ ...END, ...change })).toEqual(expected);
  });
});
