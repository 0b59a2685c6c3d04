/**
 * The agent's last event in its rendered output (as `run` shows it): the last line that is its
 * text, a `→ tool` call, a `← result`, a notice or an error. The session banner (`● …`) and the
 * closing summary (`✓ … finished`) say nothing about what the agent is doing, so they are passed over.
 */
export function lastEventLine(rendered: string): string | null {
  const lines = rendered.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = (lines[i] ?? '').trimEnd();
    if (line.trim() === '' || line.startsWith('● ') || line.startsWith('✓ ') || line.startsWith('── iteration '))
      continue;
    return line.trim();
  }
  return null;
}
