/**
 * `1 iteration`, `3 iterations`, `1 retry`, `2 retries`: the one way wiggum counts things in what it
 * prints and writes (logs, reports, the Dashboard, CLI output), never a noun with its plural ending in brackets.
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
