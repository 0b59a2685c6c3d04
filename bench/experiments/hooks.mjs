// Module resolution hooks for register.mjs: redirects a dist module to its experimental variant.
const VARIANTS = {
  'fs-watch': { suffix: '/dist/vault/file-events.js', variant: new URL('./file-events.mjs', import.meta.url).href },
};
let active = [];

export function initialize(data) {
  active = data.experiments.map((name) => {
    const variant = VARIANTS[name];
    if (variant === undefined) throw new Error(`unknown experiment ${name}: ${Object.keys(VARIANTS).join(', ')}`);
    return variant;
  });
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('?original')) return resolved;
  for (const { suffix, variant } of active) {
    if (resolved.url.endsWith(suffix) && context.parentURL !== variant)
      return { ...resolved, url: variant, shortCircuit: true };
  }
  return resolved;
}
