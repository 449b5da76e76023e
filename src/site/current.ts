/**
 * Hands the site model to the Astro pages. Astro loads pages through its own
 * module graph (a separate copy of every module), so the model travels on
 * globalThis, set by the build for the duration of one render and cleared
 * after it. Pages call {@link siteModel}; they never read evidence.
 */
import type { SiteModel } from './model.ts';

const KEY = Symbol.for('ledgerboard.siteModel');

/** Sets (or clears, with null) the model for the current render. */
export function setSiteModel(model: SiteModel | null): void {
  (globalThis as Record<symbol, unknown>)[KEY] = model ?? undefined;
}

/** The model of the current render; throws outside `ledgerboard build`. */
export function siteModel(): SiteModel {
  const model = (globalThis as Record<symbol, unknown>)[KEY] as SiteModel | undefined;
  if (!model) throw new Error('no site model: pages are rendered by `ledgerboard build`, not by `astro build` alone');
  return model;
}
