import { describe, expect, test } from 'vitest';
import { mergeLayers, unknownDefaultHarness } from '../../src/config/layers.js';

describe('mergeLayers (lowest precedence first)', () => {
  test.each([
    ['no layers → nothing', [], {}],
    ['one layer → itself', [{ a: 1 }], { a: 1 }],
    ['a later scalar replaces', [{ a: 1 }, { a: 2 }], { a: 2 }],
    ['keys only below are kept', [{ a: 1, b: 1 }, { b: 2 }], { a: 1, b: 2 }],
    [
      'mappings merge key by key, at every depth',
      [{ loop: { timeout: { per_step: 300, total: 3600 }, max: 100 } }, { loop: { timeout: { per_step: 90 } } }],
      { loop: { timeout: { per_step: 90, total: 3600 }, max: 100 } },
    ],
    ['a list replaces the list below whole', [{ args: ['-p', '--verbose'] }, { args: ['-p'] }], { args: ['-p'] }],
    [
      'null replaces a mapping (an emptied key)',
      [{ checks: { tests: { command: 'npm' } } }, { checks: null }],
      { checks: null },
    ],
    [
      'a mapping replaces a scalar',
      [{ harness: 'claude' }, { harness: { default: 'demo' } }],
      { harness: { default: 'demo' } },
    ],
    ['a scalar replaces a mapping', [{ harness: { default: 'demo' } }, { harness: 'claude' }], { harness: 'claude' }],
    [
      'three layers: the command line over --config over the vault',
      [{ daemon: { concurrency: 2, settle: 1 } }, { daemon: { concurrency: 3 } }, { daemon: { concurrency: 5 } }],
      { daemon: { concurrency: 5, settle: 1 } },
    ],
  ])('%s', (_name, layers, expected) => {
    expect(mergeLayers(layers as Record<string, unknown>[])).toEqual(expected);
  });

  test('the layers are left as they were', () => {
    const below = { loop: { max: 100 } };
    mergeLayers([below, { loop: { max: 7 } }]);
    expect(below).toEqual({ loop: { max: 100 } });
  });
});

describe('unknownDefaultHarness', () => {
  const harnesses = { demo: {}, claude: {} };
  test.each([
    ['no harness section → nothing to check', {}, null],
    ['no default → fine', { harness: {}, harnesses }, null],
    ['an empty default (none) → fine', { harness: { default: '' }, harnesses }, null],
    ['a defined harness → fine', { harness: { default: 'claude' }, harnesses }, null],
    [
      'a typo → named, with a guess',
      { harness: { default: 'cluade' }, harnesses },
      'no harness named "cluade" is defined under harnesses (did you mean claude?)',
    ],
    [
      'nothing close → named, no guess',
      { harness: { default: 'skynet' }, harnesses },
      'no harness named "skynet" is defined under harnesses',
    ],
    [
      'no harnesses at all → named',
      { harness: { default: 'demo' } },
      'no harness named "demo" is defined under harnesses',
    ],
    ['a default that is no string is the schema’s to report', { harness: { default: 3 }, harnesses }, null],
  ])('%s', (_name, merged, expected) => {
    expect(unknownDefaultHarness(merged)).toBe(expected);
  });
});
