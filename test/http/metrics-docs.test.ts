import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MetricSet } from '../../src/http/metric-set.js';
import { REPO_ROOT } from '../helpers/child.js';

interface Documented {
  type: string;
  labels: string[];
}

/** The rows of docs/metrics.md's table: name → type and labels, as written there. */
function documented(): Map<string, Documented> {
  const text = readFileSync(join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8');
  const rows = new Map<string, Documented>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(wiggum_[a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (name === undefined) continue;
    const labels = [...(cells[3] ?? '').matchAll(/`([a-z_]+)`/g)].map(([, label]) => label as string);
    rows.set(name, { type: cells[2] ?? '', labels });
  }
  return rows;
}

describe('docs/metrics.md', () => {
  test('lists every metric the registry holds, with its type and labels, and nothing else', async () => {
    const metrics = new MetricSet(1);
    const registered = new Map<string, Documented>();
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      // prom-client keeps a metric's label names on the metric object; its types do not show them.
      const single = metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames: string[] };
      registered.set(metric.name, { type: String(metric.type), labels: [...single.labelNames] });
    }
    expect(Object.fromEntries(documented())).toEqual(Object.fromEntries(registered));
  });
});
