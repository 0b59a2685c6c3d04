import { didYouMeanSuffix } from './did-you-mean.js';

/**
 * The config layers (config/default.yaml, the vault's .wiggum/config.yaml, --config, the command
 * line's overrides) merged into one, lowest precedence first. Mappings merge key by key, so a vault
 * that sets `persistence_loop.timeout.per_step` keeps every other default; anything else (a list,
 * a scalar, null) replaces what is below it whole, so a vault's `args:` is the whole list, not an
 * addition to the default one (`extra_args:` is the addition).
 */
export function mergeLayers(layers: readonly Record<string, unknown>[]): Record<string, unknown> {
  return layers.reduce<Record<string, unknown>>((merged, layer) => deepMerge(merged, layer), {});
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return result;
}

/**
 * What is wrong with `harness.default` when it names no harness under `harnesses`, or null (none
 * named, or a defined one). Read from the merged layers before the schema, so that one pass of
 * `wiggum validate` reports it beside any schema error.
 */
export function unknownDefaultHarness(merged: Record<string, unknown>): string | null {
  const harness = merged.harness;
  const named = isPlainObject(harness) ? harness.default : undefined;
  if (typeof named !== 'string' || named === '') return null;
  const harnesses = isPlainObject(merged.harnesses) ? Object.keys(merged.harnesses) : [];
  if (harnesses.includes(named)) return null;
  return `no harness named "${named}" is defined under harnesses${didYouMeanSuffix(named, harnesses)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
