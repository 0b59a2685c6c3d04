import type { AgentError } from './agent-event.js';

/**
 * Classifies the error text an agent CLI printed about its own failure (an error event, a failed
 * result, the end of stderr) into the loop's failure classes. Only ever called with text the CLI
 * reports as an error, never with what the agent wrote or a tool printed, so broad words are safe.
 * Checked in this order: a usage limit (wait for the reset), exhausted billing, refused
 * credentials, a prompt over the model's context, rate limit, overload, network.
 */

/** What a message needs to know about the agent. */
export interface AgentFacts {
  /** The agent as people know it: "Codex", "OpenCode". */
  name: string;
  /** The fix for refused credentials, e.g. "run `codex login` or set OPENAI_API_KEY". */
  authFix: string;
}

const USAGE_LIMIT =
  /usage limit|hit your (usage )?limit|daily quota|quota will reset|limit resets|(5-hour|hourly|daily|weekly|monthly) limit|out of (free )?(usage|messages)/i;
const BILLING =
  /insufficient[_ ]quota|quota exceeded\. check your plan|check your plan and billing|billing details|out of credits|insufficient (credits|balance|funds)|credit balance is too low|no (remaining )?credits|payment required|\b402\b/i;
const AUTH =
  /\b401\b|unauthori[sz]ed|unauthenticated|invalid[_ ]api[_ ]key|incorrect api key|api key not valid|invalid x-api-key|invalid (or missing )?(api key|token|credentials)|authentication[_ ](error|failed|required)|not (logged|signed) in|please (log|sign) ?in|run ['`"]?\w+ login|login (is )?required|missing (environment variable|api key|bearer)|no api key|set an auth method|token (has )?expired|\b403\b|forbidden|permission_error/i;
const CONTEXT_TOO_LONG =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|input is too long|too many (input )?tokens for|exceeds the (model's )?(context|token) limit|input token count .* exceeds/i;
const RATE_LIMIT =
  /\b429\b|rate[_ -]?limit|too many requests|resource[_ ]exhausted|resource has been exhausted|requests per minute|tokens per minute/i;
// Codex prints a 503 `server_is_overloaded` (and `slow_down`) as "Selected model is at capacity";
// Gemini's MODEL_CAPACITY_EXHAUSTED says "No capacity available for model …".
const OVERLOAD =
  /overloaded|high demand|at capacity|no capacity available|capacity (is )?(exhausted|exceeded)|slow_down|\b(500|502|503|504|529)\b|service unavailable|temporarily unavailable|server[_ ]error|internal server error|bad gateway|gateway timeout|try again later/i;
const NETWORK =
  /econnrefused|econnreset|etimedout|enotfound|eai_again|enetunreach|ehostunreach|epipe|socket hang up|fetch failed|network|stream disconnected|error sending request|failed to lookup address|name does not resolve|cannot connect|unable to connect|could not connect|couldn.t connect|connection (refused|reset|closed|error|failed|timed out)|timed out|tls handshake|certificate/i;

export function classifyFailureText(text: string, agent: AgentFacts, nowMs: number): AgentError | null {
  const said = excerpt(text);
  if (said === '') return null;
  if (USAGE_LIMIT.test(text)) return usageLimit(agent, said, parseResetTime(text, nowMs));
  if (BILLING.test(text)) return { kind: 'billing', message: billingMessage(agent, said) };
  if (AUTH.test(text)) return { kind: 'auth', message: authMessage(agent, said) };
  if (CONTEXT_TOO_LONG.test(text)) return { kind: 'context_too_long', message: contextMessage(agent, said) };
  if (RATE_LIMIT.test(text)) return { kind: 'rate_limit', message: `${agent.name} was rate limited: ${said}` };
  if (OVERLOAD.test(text))
    return { kind: 'overloaded', message: `${agent.name}'s model service is overloaded or failing: ${said}` };
  if (NETWORK.test(text))
    return { kind: 'network', message: `${agent.name} could not reach its model service: ${said}` };
  return null;
}

/** The messages of each kind, shared by the drivers that classify by fields rather than text. */
export function usageLimit(agent: AgentFacts, said: string, resetAtMs: number | null): AgentError {
  const when =
    resetAtMs === null ? 'it did not say when it resets' : `it resets at ${new Date(resetAtMs).toISOString()}`;
  return { kind: 'usage_limit', message: `${agent.name} reached its usage limit (${when}): ${said}`, resetAtMs };
}

export function authMessage(agent: AgentFacts, said: string): string {
  return `${agent.name} could not authenticate (the API key or login was refused): ${said}; ${agent.authFix}, then retry the task`;
}

export function billingMessage(agent: AgentFacts, said: string): string {
  return `${agent.name} has no quota or credits left, which waiting will not fix: ${said}; add credits or raise the quota, then retry the task`;
}

export function contextMessage(agent: AgentFacts, said: string): string {
  return `the prompt is longer than the model's context: ${said}; shorten the task, context.md or progress.txt of the task (or pick a model with a larger context), then retry the task`;
}

/** The text on one line, cut to `maxChars`, for messages. */
export function excerpt(text: string, maxChars = 400): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
};

/**
 * When a usage limit resets, from the words of the message (epoch ms), or null. Understands an ISO
 * time, an epoch after a `|` (Claude Code's form), "try again at 5:47 PM", "try again at Nov 24th,
 * 2026 4:47 PM", "resets 3pm" (local time, the next such time after `nowMs`) and "retry in
 * 3h12m5s" / "resets in 2 hours" (after `nowMs`).
 */
export function parseResetTime(text: string, nowMs: number): number | null {
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso?.[1] !== undefined) {
    const ms = Date.parse(iso[1]);
    if (!Number.isNaN(ms)) return ms;
  }
  const epoch = /\|\s*(\d{10})(?!\d)/.exec(text);
  if (epoch?.[1] !== undefined) return Number(epoch[1]) * 1000;

  const relative =
    /\b(?:try again|retry|resets?|available( again)?)\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[a-z]*[\s,]*(?:and\s+)?)+)/i.exec(
      text,
    );
  if (relative?.[2] !== undefined) {
    const ms = parseDuration(relative[2]);
    if (ms !== null) return nowMs + ms;
  }
  const absolute = /\b(?:try again|retry|resets?|available( again)?)\s+(?:at|after|on)?\s*([^.;\n]{1,60})/i.exec(text);
  if (absolute?.[2] !== undefined) return parseClock(absolute[2], nowMs);
  return null;
}

function parseDuration(text: string): number | null {
  let total = 0;
  let matched = false;
  for (const part of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const word = (part[2] ?? '').toLowerCase();
    const unit = word.length > 2 && word.endsWith('s') ? word.slice(0, -1) : word;
    const scale = DURATION_UNITS[unit] ?? DURATION_UNITS[unit.slice(0, 3)] ?? DURATION_UNITS[unit.slice(0, 1)];
    if (scale === undefined) break;
    total += Number(part[1]) * scale;
    matched = true;
  }
  return matched ? Math.round(total) : null;
}

/** "5:47 PM", "17:47", "3pm", "Nov 24th, 2026 4:47 PM" in local time; a bare time is the next one after now. */
function parseClock(text: string, nowMs: number): number | null {
  const clock =
    /(?:\b([a-z]{3})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(\d{4}),?\s+)?(?:at\s+)?)?\b(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?![\d:])/i.exec(
      text,
    );
  if (clock === null) return null;
  const [, monthName, day, year, hourText, minuteText, meridiem] = clock;
  if (minuteText === undefined && meridiem === undefined) return null;
  let hour = Number(hourText);
  const minute = Number(minuteText ?? 0);
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (meridiem.toLowerCase().startsWith('p') ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return null;
  const now = new Date(nowMs);
  if (monthName !== undefined && day !== undefined) {
    const month = MONTHS.indexOf(monthName.toLowerCase());
    if (month === -1) return null;
    const at = new Date(year === undefined ? now.getFullYear() : Number(year), month, Number(day), hour, minute);
    // "Jan 2" said in late December without a year is next year.
    if (year === undefined && at.getTime() < nowMs - 86_400_000) at.setFullYear(at.getFullYear() + 1);
    return at.getTime();
  }
  const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour, minute);
  if (at.getTime() < nowMs - 60_000) at.setDate(at.getDate() + 1);
  return at.getTime();
}
