import { describe, expect, test } from 'vitest';
import type { Budget } from '../../src/config/config.js';
import { budgetCrossed, taskBudget } from '../../src/loop/budget.js';
import { NOTHING_SPENT } from '../../src/memory/spent.js';
import type { Spent } from '../../src/memory/spent.js';

const NO_LIMIT: Budget = { maxTokens: 0, maxCostUsd: 0, maxDurationMs: 0 };
const LIMITS: Budget = { maxTokens: 1000, maxCostUsd: 1, maxDurationMs: 60_000 };

describe('budgetCrossed', () => {
  const cases: [string, Partial<Spent>, Partial<Budget>, number, string | null][] = [
    ['nothing spent, every budget set → within', {}, LIMITS, 0, null],
    [
      'no budget set, much spent → within',
      { inputTokens: 10 ** 9, costUsd: 10 ** 6, agentMs: 10 ** 9 },
      NO_LIMIT,
      9,
      null,
    ],
    ['tokens below the budget → within', { inputTokens: 600, outputTokens: 399 }, LIMITS, 3, null],
    [
      'tokens at the budget (input and output summed) → crossed',
      { inputTokens: 600, outputTokens: 400 },
      LIMITS,
      3,
      'the task used 1,000 tokens, its budget is 1,000 (max_tokens), after 3 iterations',
    ],
    [
      'tokens above the budget → crossed',
      { inputTokens: 1200 },
      LIMITS,
      1,
      'the task used 1,200 tokens, its budget is 1,000 (max_tokens), after 1 iteration',
    ],
    ['tokens above, token budget absent → within', { inputTokens: 1200 }, { ...LIMITS, maxTokens: 0 }, 1, null],
    ['cost below the budget → within', { costUsd: 0.9999 }, LIMITS, 2, null],
    [
      'cost at the budget → crossed',
      { costUsd: 1 },
      LIMITS,
      2,
      'the task cost $1.0000, its budget is $1.00 (max_cost_usd), after 2 iterations',
    ],
    [
      'cost above the budget → crossed',
      { costUsd: 1.23456 },
      LIMITS,
      2,
      'the task cost $1.2346, its budget is $1.00 (max_cost_usd), after 2 iterations',
    ],
    ['cost above, cost budget absent → within', { costUsd: 5 }, { ...LIMITS, maxCostUsd: 0 }, 2, null],
    [
      'no cost reported (Codex, Gemini) → never crosses a cost budget',
      { costUsd: null },
      { maxCostUsd: 0.01 },
      4,
      null,
    ],
    ['agent time below the budget → within', { agentMs: 59_999 }, LIMITS, 5, null],
    [
      'agent time at the budget → crossed',
      { agentMs: 60_000 },
      LIMITS,
      5,
      'the agent worked 60 s on the task, its budget is 60 s (max_duration), after 5 iterations',
    ],
    [
      'agent time above the budget → crossed',
      { agentMs: 90_400 },
      LIMITS,
      5,
      'the agent worked 90 s on the task, its budget is 60 s (max_duration), after 5 iterations',
    ],
    ['agent time above, time budget absent → within', { agentMs: 90_400 }, { ...LIMITS, maxDurationMs: 0 }, 5, null],
    ['CPU time and memory are no budget', { cpuMs: 10 ** 9, peakRssBytes: 10 ** 12 }, LIMITS, 5, null],
    [
      'several crossed → tokens are named first',
      { inputTokens: 5000, costUsd: 9, agentMs: 10 ** 6 },
      LIMITS,
      7,
      'the task used 5,000 tokens, its budget is 1,000 (max_tokens), after 7 iterations',
    ],
    [
      'cost and time crossed → cost is named first',
      { costUsd: 9, agentMs: 10 ** 6 },
      LIMITS,
      7,
      'the task cost $9.0000, its budget is $1.00 (max_cost_usd), after 7 iterations',
    ],
  ];

  test.each(cases)('%s', (_name, spent, budget, iteration, expected) => {
    expect(budgetCrossed({ ...NOTHING_SPENT, ...spent }, iteration, { ...NO_LIMIT, ...budget })).toBe(expected);
  });
});

describe('taskBudget (the task, else the config, for each budget on its own)', () => {
  const configured: Budget = { maxTokens: 500_000, maxCostUsd: 5, maxDurationMs: 3_600_000 };
  test.each([
    ['a task without budget keys keeps the config', {}, configured, configured],
    ['no budget anywhere → no limit', {}, NO_LIMIT, NO_LIMIT],
    ['max_tokens replaces only the token budget', { max_tokens: 100 }, configured, { ...configured, maxTokens: 100 }],
    [
      'max_cost_usd replaces only the cost budget',
      { max_cost_usd: 0.5 },
      configured,
      { ...configured, maxCostUsd: 0.5 },
    ],
    [
      'max_duration (already in ms) replaces only the time budget',
      { max_duration: 60_000 },
      configured,
      { ...configured, maxDurationMs: 60_000 },
    ],
    [
      'a task may set a budget the config leaves unlimited, and loosen one it sets',
      { max_tokens: 2_000_000, max_duration: 60_000 },
      { ...NO_LIMIT, maxTokens: 500_000 },
      { maxTokens: 2_000_000, maxCostUsd: 0, maxDurationMs: 60_000 },
    ],
  ] as const)('%s', (_name, frontmatter, config, expected) => {
    expect(taskBudget(frontmatter, config)).toEqual(expected);
  });
});
