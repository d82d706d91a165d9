// The app's door to the in-page model. Nothing here loads the runtime until a call needs
// it: the model files (models.js) and llama.cpp (runtime.js, with its wasm) are imported
// from the page's own origin on first use.
let models;
let runtime;
const load = (name) => import(new URL(`inpage/${name}.js`, document.baseURI).href);
const files = () => (models ??= load('models'));
const engine = () => (runtime ??= load('runtime'));

export function inpage_isolated() {
  return !!globalThis.crossOriginIsolated;
}

export async function inpage_stored() {
  return (await files()).stored();
}

export async function inpage_keep(file, onProgress) {
  if (runtime) await (await runtime).unload();
  return (await files()).keep(file, onProgress);
}

export async function inpage_offered() {
  return (await files()).offered();
}

export async function inpage_keep_offered(name, onProgress) {
  if (runtime) await (await runtime).unload();
  return (await files()).keepOffered(name, onProgress);
}

export async function inpage_remove() {
  if (runtime) await (await runtime).unload();
  return (await files()).remove();
}

export async function inpage_load(nCtx, threads) {
  return (await engine()).load({ nCtx, threads });
}

export async function inpage_start(request, fit, signal) {
  return (await engine()).start(request, fit, signal);
}
