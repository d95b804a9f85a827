/**
 * The project's folder: one level above this module, which is in src/ when the sources run and in
 * dist/ when the built gateway runs (scripts/build-gateway.ts). Files the gateway reads at run time
 * (schema/, playground/dist/) are found from here, the same way in both.
 */
export const PROJECT_ROOT = new URL('../', import.meta.url);
