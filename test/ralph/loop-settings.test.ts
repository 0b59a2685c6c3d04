import { describe, expect, test } from 'vitest';
import { isWiggumError } from '../../src/errors.js';
import { chooseSettings, describeRecorded, pickSetting, unrecorded } from '../../src/ralph/loop-settings.js';
import type { SettingsInput } from '../../src/ralph/loop-settings.js';

describe('pickSetting: flag, then recorded, then configured default', () => {
  test.each([
    // flag, recorded, configured → value, source, replaced
    ['beta', 'alpha', 'demo', 'beta', 'flag', 'alpha'],
    ['alpha', 'alpha', 'demo', 'alpha', 'flag', null],
    ['beta', undefined, 'demo', 'beta', 'flag', null],
    ['beta', undefined, undefined, 'beta', 'flag', null],
    [undefined, 'alpha', 'demo', 'alpha', 'recorded', null],
    [undefined, 'alpha', undefined, 'alpha', 'recorded', null],
    [undefined, undefined, 'demo', 'demo', 'default', null],
  ] as const)(
    'flag %s, recorded %s, default %s → %s from the %s (replacing %s)',
    (flag, recorded, configured, value, source, replaced) => {
      expect(pickSetting<string>(flag, recorded, configured)).toEqual({ value, source, replaced });
    },
  );

  test('nothing set anywhere: undefined', () => {
    expect(pickSetting<string>(undefined, undefined, undefined)).toBeUndefined();
  });

  test.each([
    [2, 6, 2, 6],
    [undefined, 6, 6, null],
    [6, 6, 6, null],
  ] as const)('numbers too: flag %s over recorded %s → %s (replacing %s)', (flag, recorded, value, replaced) => {
    expect(pickSetting<number>(flag, recorded)).toMatchObject({ value, replaced });
  });
});

const base: SettingsInput = {
  flags: {},
  recorded: {},
  configuredHarness: 'demo',
  harnesses: ['demo', 'alpha', 'beta'],
};

describe('chooseSettings', () => {
  test.each([
    // flags, recorded, configured default → harness, from
    [{ harness: 'beta' }, { harness: 'alpha' }, 'demo', 'beta', 'flag'],
    [{}, { harness: 'alpha' }, 'demo', 'alpha', 'recorded'],
    [{}, { harness: 'alpha' }, '', 'alpha', 'recorded'],
    [{}, { harness: 'alpha' }, null, 'alpha', 'recorded'],
    [{}, {}, 'demo', 'demo', 'default'],
    [{ harness: 'beta' }, {}, '', 'beta', 'flag'],
  ] as const)(
    'flags %j, recorded %j, harness.default %j → %s from the %s',
    (flags, recorded, configuredHarness, harness, from) => {
      const choice = chooseSettings({ ...base, flags, recorded, configuredHarness });
      expect(choice.settings.harness).toBe(harness);
      expect(choice.harnessSource).toBe(from);
    },
  );

  test.each([[''], ['  '], [null], [undefined]] as const)(
    'no flag, nothing recorded and harness.default %j: E_USAGE saying to pass --harness',
    (configuredHarness) => {
      let thrown: unknown;
      try {
        chooseSettings({ ...base, configuredHarness });
      } catch (error) {
        thrown = error;
      }
      expect(isWiggumError(thrown, 'E_USAGE')).toBe(true);
      expect((thrown as Error).message).toContain('pass --harness NAME');
      expect((thrown as Error).message).toContain('demo, alpha, beta');
    },
  );

  test('a recorded harness the config no longer defines: E_USAGE naming it, not a silent fallback to the default', () => {
    expect(() => chooseSettings({ ...base, recorded: { harness: 'gone' } })).toThrow(
      /recorded harness "gone" is not defined in the config.*pass --harness NAME/,
    );
  });

  test('the other settings: flag over recorded, absent when neither is set (the config default then applies)', () => {
    const choice = chooseSettings({
      ...base,
      flags: { maxIterations: 9 },
      recorded: { harness: 'alpha', maxIterations: 2, completionPromise: 'SHIPPED', failFast: true },
    });
    expect(choice.settings).toEqual({
      harness: 'alpha',
      maxIterations: 9,
      completionPromise: 'SHIPPED',
      failFast: true,
    });
    expect(chooseSettings(base).settings).toEqual({ harness: 'demo' });
  });

  test('each recorded setting a different flag replaces is said in one line naming both values', () => {
    const choice = chooseSettings({
      ...base,
      flags: { harness: 'beta', maxIterations: 9, completionPromise: 'DONE', failFast: true },
      recorded: { harness: 'alpha', maxIterations: 2, completionPromise: 'SHIPPED', failFast: true },
    });
    expect(choice.switches).toEqual([
      'harness: beta instead of the recorded alpha',
      'max iterations: 9 instead of the recorded 2',
      'completion promise: "DONE" instead of the recorded "SHIPPED"',
    ]);
  });

  test('the same value given again, or a first value, is not a switch', () => {
    expect(
      chooseSettings({ ...base, flags: { harness: 'alpha', maxIterations: 3 }, recorded: { harness: 'alpha' } })
        .switches,
    ).toEqual([]);
  });
});

describe('unrecorded: what a run writes down', () => {
  test.each([
    [{ harness: 'demo' }, {}, { harness: 'demo' }],
    [{ harness: 'alpha' }, { harness: 'alpha' }, {}],
    [{ harness: 'beta', maxIterations: 2 }, { harness: 'alpha', maxIterations: 2 }, { harness: 'beta' }],
    [
      { harness: 'alpha', completionPromise: 'X', failFast: true },
      { harness: 'alpha' },
      { completionPromise: 'X', failFast: true },
    ],
  ] as const)('chosen %j over recorded %j → %j', (chosen, recorded, written) => {
    expect(unrecorded(chosen, recorded)).toEqual(written);
  });
});

describe('describeRecorded', () => {
  test.each([
    [{}, 'recorded: no harness yet (the next run uses --harness NAME or harness.default)'],
    [{ harness: 'keeper' }, 'recorded: harness keeper'],
    [
      { harness: 'keeper', maxIterations: 6, completionPromise: 'SHIPPED', failFast: true },
      'recorded: harness keeper, max iterations 6, completion promise "SHIPPED", fail fast on',
    ],
  ] as const)('%j → %s', (recorded, line) => {
    expect(describeRecorded(recorded)).toBe(line);
  });
});
