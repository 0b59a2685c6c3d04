/**
 * Variables by which an agent CLI tells it runs inside another agent's session (Claude Code sets
 * CLAUDECODE for the commands it runs): a wiggum started from such a session must not hand them
 * on, or the agent changes how it behaves. Dropped even when allow-listed.
 */
export const NESTING_MARKERS = ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT'] as const;

/** Pure: the environment without the nesting markers. */
export function withoutNestingMarkers(env: Record<string, string>): Record<string, string> {
  const copy = { ...env };
  for (const name of NESTING_MARKERS) delete copy[name];
  return copy;
}
