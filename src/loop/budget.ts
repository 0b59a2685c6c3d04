import type { Budget } from '../config/config.js';
import { totalTokens } from '../memory/spent.js';
import type { Spent } from '../memory/spent.js';
import type { TaskFrontmatter } from '../task/schema.js';

/**
 * A task's budgets: each of its `max_tokens`, `max_cost_usd` and `max_duration` replaces the
 * config's `persistence_loop.budget` value on its own, so a task can tighten one budget and keep
 * the vault's others. A task cannot set one to 0 (the schema wants a positive value): only the
 * config lifts a limit.
 */
export function taskBudget(
  frontmatter: Pick<TaskFrontmatter, 'max_tokens' | 'max_cost_usd' | 'max_duration'>,
  configured: Budget,
): Budget {
  return {
    maxTokens: frontmatter.max_tokens ?? configured.maxTokens,
    maxCostUsd: frontmatter.max_cost_usd ?? configured.maxCostUsd,
    maxDurationMs: frontmatter.max_duration ?? configured.maxDurationMs,
  };
}

/**
 * Which budget the task has used up, in words, or null while it is within all of them. A budget of
 * 0 is no limit; reaching a budget exactly counts as using it up.
 * Tokens are checked first, then cost, then agent time: one reason is given, the first that holds.
 */
export function budgetCrossed(spent: Spent, iteration: number, budget: Budget): string | null {
  const after = `after ${iteration} iteration${iteration === 1 ? '' : 's'}`;
  const tokens = totalTokens(spent);
  if (budget.maxTokens > 0 && tokens >= budget.maxTokens) {
    return `the task used ${tokens.toLocaleString('en-US')} tokens, its budget is ${budget.maxTokens.toLocaleString('en-US')} (max_tokens), ${after}`;
  }
  // An agent that reports no cost (Codex, Gemini) never crosses a cost budget: nothing is estimated.
  if (budget.maxCostUsd > 0 && spent.costUsd !== null && spent.costUsd >= budget.maxCostUsd) {
    return `the task cost $${spent.costUsd.toFixed(4)}, its budget is $${budget.maxCostUsd.toFixed(2)} (max_cost_usd), ${after}`;
  }
  if (budget.maxDurationMs > 0 && spent.agentMs >= budget.maxDurationMs) {
    return `the agent worked ${Math.round(spent.agentMs / 1000)} s on the task, its budget is ${Math.round(budget.maxDurationMs / 1000)} s (max_duration), ${after}`;
  }
  return null;
}
