/**
 * Lazy, once-only loading of Rapier (@dimforge/rapier3d-compat). The package is imported
 * dynamically so the core, the CLI's other commands and the sandbox never load its
 * WebAssembly unless a cross-check asks for it; `RAPIER.init()` runs once per process (or
 * page) behind a module-level promise, in Node and in the browser alike (the compat build
 * inlines its wasm as base64, so no file or URL has to be served).
 */
import type RapierDefault from '@dimforge/rapier3d-compat';

export type Rapier = typeof RapierDefault;

let loading: Promise<Rapier> | null = null;
let inits = 0;

/** How many times `RAPIER.init()` has been called in this process or page: 0 until first use, then 1 however many mirrors are built (more only after a failed load was retried). */
export function rapierInits(): number {
  return inits;
}

/** Rapier, initialised; every call shares one promise (a failed load may be retried). */
export function loadRapier(): Promise<Rapier> {
  if (!loading) {
    loading = import('@dimforge/rapier3d-compat')
      .then(async (module) => {
        const R = ((module as { default?: Rapier }).default ?? module) as Rapier;
        inits++;
        await R.init();
        return R;
      })
      .catch((e: unknown) => {
        loading = null;
        const code = (e as { code?: string }).code;
        if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
          throw new Error('cannot load Rapier: the optional package @dimforge/rapier3d-compat is not installed (npm install @dimforge/rapier3d-compat)');
        }
        throw new Error(`cannot load Rapier (@dimforge/rapier3d-compat): ${e instanceof Error ? e.message : String(e)}`);
      });
  }
  return loading;
}
