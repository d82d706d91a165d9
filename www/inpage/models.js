// The in-page model's file: checked to be a GGUF, kept in the origin's private file
// system (OPFS) so a reload — offline too — needs no second pick, listed and removed.
// Loads without the runtime, so Settings can show what is kept cheaply.
const DIR = 'nocturne-models';

async function folder() {
  if (!navigator.storage?.getDirectory) {
    throw new Error('this browser has no origin private file system, so the model cannot be kept');
  }
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(DIR, { create: true });
}

/** The kept file's handle, or null. */
export async function storedHandle() {
  const dir = await folder();
  for await (const [name, handle] of dir.entries()) {
    if (handle.kind === 'file' && !name.endsWith('.part')) return handle;
  }
  return null;
}

/** The kept model file: `{ name, size }`, or null. */
export async function stored() {
  const handle = await storedHandle();
  if (!handle) return null;
  const file = await handle.getFile();
  return { name: file.name, size: file.size };
}

/** Checks that `file` is a GGUF model and keeps it in place of any other, reporting
 * `onProgress(fraction)` while it copies. Nothing is replaced unless the copy completes. */
export async function keep(file, onProgress) {
  const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const text = String.fromCharCode(...magic);
  if (file.size < 8 || text !== 'GGUF') {
    throw new Error(`"${file.name}" is not a GGUF model file (it does not start with "GGUF"); pick a .gguf file such as SmolLM2-135M-Instruct.Q4_1.gguf`);
  }
  const dir = await folder();
  const part = file.name.replace(/[\\/]/g, '_') + '.part';
  const handle = await dir.getFileHandle(part, { create: true });
  const out = await handle.createWritable();
  try {
    const step = 8 << 20;
    for (let at = 0; at < file.size; at += step) {
      await out.write(await file.slice(at, at + step).arrayBuffer());
      onProgress?.(Math.min(1, (at + step) / file.size));
    }
    await out.close();
  } catch (e) {
    await out.abort().catch(() => {});
    await dir.removeEntry(part).catch(() => {});
    if (e?.name === 'QuotaExceededError') {
      throw new Error(`the browser has no room to keep "${file.name}" (${mb(file.size)}); free some space or remove other site data`);
    }
    throw e;
  }
  for await (const [name] of dir.entries()) {
    if (name !== part) await dir.removeEntry(name);
  }
  await handle.move(part.slice(0, -'.part'.length));
  return stored();
}

/** Forgets the kept model. */
export async function remove() {
  const dir = await folder();
  for await (const [name] of dir.entries()) await dir.removeEntry(name);
}

/** The models this site offers from its own origin (`models/index.json`, written when
 * scripts/serve.sh finds one): `[{ name, size }]`, empty when it offers none. */
export async function offered() {
  try {
    const r = await fetch('models/index.json', { cache: 'no-store' });
    if (!r.ok) return [];
    const list = await r.json();
    return Array.isArray(list) ? list.filter((m) => typeof m?.name === 'string' && typeof m?.size === 'number') : [];
  } catch {
    return [];
  }
}

/** Downloads an offered model from this origin, with progress, and keeps it. */
export async function keepOffered(name, onProgress) {
  const r = await fetch(`models/${encodeURIComponent(name)}`);
  if (!r.ok || !r.body) throw new Error(`this site could not send "${name}" (HTTP ${r.status})`);
  const total = Number(r.headers.get('content-length')) || 0;
  const reader = r.body.getReader();
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    if (total) onProgress?.(0.5 * Math.min(1, got / total));
  }
  return keep(new File(parts, name), (f) => onProgress?.(0.5 + 0.5 * f));
}

/** `93.8 MB`. */
export function mb(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}
