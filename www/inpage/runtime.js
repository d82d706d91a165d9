// Nocturne's in-page model: llama.cpp compiled to WebAssembly (wllama, MIT), running in a
// Web Worker, behind the few calls the Rust provider makes. This file and the runtime it
// imports load only when the in-page provider is used; everything comes from the page's
// own origin. The model file is the one models.js keeps in the origin's private files.
import { Wllama } from './wllama/index.js';
import { mb, storedHandle } from './models.js';
import { RUNTIME } from './wllama/build.js';

const runtime = new URL('./wllama/', import.meta.url).href;
const PATHS = {
  'single-thread/wllama.wasm': runtime + 'single-thread/wllama.wasm',
  'multi-thread/wllama.wasm': runtime + 'multi-thread/wllama.wasm',
};
// Prompt tokens decoded between two looks at the Stop signal.
const PROMPT_CHUNK = 64;
const quiet = { debug() {}, log() {}, warn() {}, error: (...a) => console.error('[in-page model]', ...a) };

let engine = null; // { wllama, key, info, vocab, pieces }
// Replies already produced, by request: decoding is greedy (temperature 0, top-k 1), so the
// same prompt under the same grammar and token limit gets the same reply, and asking again
// costs nothing. A Sleep planned as a dry run and then run, or the same pass under two
// retention policies, asks the model the same things. Emptied when the model changes;
// only completed replies are kept (a stopped or failed one never is).
const replies = new Map();
const REPLIES_KEPT = 64;
// Loads and replies run one at a time: a second load of the same model waits for the first
// and finds it loaded, instead of starting a second runtime.
let queue = Promise.resolve();
const serially = (work) => {
  const run = queue.then(work);
  queue = run.catch(() => {});
  return run;
};

/** Counters the end-to-end checks and the benchmark read: calls answered, replies given
 * again without decoding (`replayed`), tokens the worker produced and the time spent
 * producing them, replies it ended because Stop was pressed, prompt and grammar costs, and
 * `last`, the newest reply's `{ promptTokens, decoded, reused, firstTokenMs, replayed }`
 * (`decoded` of its prompt's tokens were read; `reused` were already in the cache). */
export const stats = { calls: 0, replayed: 0, generated: 0, genMs: 0, generating: false, stopped: 0, lastTokensPerSecond: 0, promptTokens: 0, promptMs: 0, grammarChecks: 0, grammarMs: 0, widened: 0, last: null };

/** What the loaded model runs with (as `load` resolved), or null when none is loaded. */
export function loaded() {
  return engine?.info ?? null;
}

/** Frees the runtime (the kept file stays), after the call under way. */
export function unload() {
  return serially(unloadNow);
}

async function unloadNow() {
  const old = engine;
  engine = null;
  replies.clear();
  if (old) await old.wllama.exit().catch(() => {});
}

/** How the runtime reads and keeps a prompt unless told otherwise: flash attention off, keys
 * cached as q8_0 and values as f32 (`kvType` is `K/V`, or one type for both). On
 * SmolLM2-135M on this project's 2-core machines flash attention off and an f32 cache read a
 * ~2,000-token prompt 2.4-4.8x faster than llama.cpp's defaults (flash attention auto, f16
 * cache) on either runtime, and q8_0 keys ~5% faster again: the attention's dot products
 * then run on wasm's integer SIMD kernel (llama.cpp quantises values only under flash
 * attention). README; scripts/bench.sh prints an `inpage-vs-native:` line for each. */
export const OPTIONS = Object.freeze({ flashAttn: false, kvType: 'q8_0/f32' });

/** GGUF `general.file_type` values and their names (llama.cpp's llama_ftype). */
const FILE_TYPES = { 0: 'F32', 1: 'F16', 2: 'Q4_0', 3: 'Q4_1', 7: 'Q8_0', 8: 'Q5_0', 9: 'Q5_1', 10: 'Q2_K', 11: 'Q3_K_S', 12: 'Q3_K_M', 13: 'Q3_K_L', 14: 'Q4_K_S', 15: 'Q4_K_M', 16: 'Q5_K_S', 17: 'Q5_K_M', 18: 'Q6_K', 32: 'BF16' };

/** Loads the kept model into the worker (once per file and configuration). `config` is
 * `{ nCtx, threads, flashAttn?, kvType? }` (the last two default to `OPTIONS`); resolves
 * to `{ name, size, nCtx, threads, multiThread, flashAttn, kvType, quant, runtime,
 * runtimeDetail, loadMs }` (`runtime`: `built`, llama.cpp with wasm SIMD built by
 * scripts/setup.sh, or `npm`, the generic build). */
export function load(config) {
  return serially(() => loadNow(config));
}

async function loadNow(config) {
  const handle = await storedHandle();
  if (!handle) throw new Error('no model file is kept in this browser; pick a .gguf file in Settings');
  const file = await handle.getFile();
  const isolatedNow = !!globalThis.crossOriginIsolated;
  const threads = isolatedNow ? Math.max(1, config.threads | 0) : 1;
  const flashAttn = config.flashAttn ?? OPTIONS.flashAttn;
  const kvType = config.kvType ?? OPTIONS.kvType;
  const key = `${file.name}|${file.size}|${config.nCtx}|${threads}|${flashAttn}|${kvType}`;
  if (engine?.key === key) return engine.info;
  await unloadNow();
  const started = performance.now();
  const wllama = new Wllama(PATHS, { suppressNativeLog: true, logger: quiet });
  try {
    await wllama.loadModel([file], {
      n_ctx: config.nCtx,
      n_threads: threads,
      n_batch: 256,
      seed: 1,
      flash_attn: flashAttn,
      cache_type_k: kvType.split('/')[0],
      cache_type_v: kvType.split('/').pop(),
    });
  } catch (e) {
    await wllama.exit().catch(() => {});
    const message = String(e?.message ?? e);
    if (/memory|alloc|OOM|RangeError/i.test(message)) {
      throw new Error(`the model did not fit in this page's memory (${mb(file.size)}, context ${config.nCtx}): ${message}; try a smaller model or context`);
    }
    throw new Error(`the runtime could not load "${file.name}": ${message}`);
  }
  // wllama 2.3.7 lists the vocabulary after as many empty entries: skip them.
  let vocab = await wllama.getVocab();
  const half = vocab.length / 2;
  if (Number.isInteger(half) && vocab.slice(0, half).every((b) => b.length === 0)) vocab = vocab.slice(half);
  const utf8 = new TextDecoder();
  const pieces = vocab.map((bytes) => utf8.decode(bytes));
  const context = wllama.getLoadedContextInfo();
  const fileType = context.metadata?.['general.file_type'];
  // The variant running (one thread or several) was built here, or is npm's.
  const builtHere = (RUNTIME.variants ?? []).includes(wllama.isMultithread() ? 'multi' : 'single');
  const info = {
    name: file.name,
    size: file.size,
    nCtx: context.n_ctx,
    threads: wllama.getNumThreads(),
    multiThread: wllama.isMultithread(),
    flashAttn,
    kvType,
    quant: FILE_TYPES[fileType] ?? (fileType === undefined ? 'unknown' : `file type ${fileType}`),
    runtime: builtHere ? 'built' : 'npm',
    runtimeDetail: builtHere ? RUNTIME.detail : RUNTIME.npmDetail ?? RUNTIME.detail,
    loadMs: Math.round(performance.now() - started),
  };
  engine = { wllama, key, info, vocab, pieces };
  replies.clear();
  return info;
}

/** One reply: `request` is `{ messages, maxTokens, fit?, cache? }` (`cache: false` reads
 * the whole prompt from an empty cache); `onDelta(text)` gets each new
 * piece; `signal` (an AbortSignal) stops the worker between prompt chunks and between
 * tokens. `fit(text)` (0: never, 1: a start, 2: complete) constrains the reply: each token
 * is the most likely one that keeps the text a start of a match, and the reply ends when
 * it is complete. Calls run one at a time. Resolves to `{ text, promptTokens,
 * completionTokens, truncated, ms }`; rejects with an AbortError when stopped. */
export function complete(request, onDelta, signal) {
  return serially(() => generate(request, onDelta, signal));
}

async function generate(request, onDelta, signal) {
  const stopped = () => {
    if (signal?.aborted) throw new DOMException('stopped by the user', 'AbortError');
  };
  stopped();
  if (!engine) throw new Error('the in-page model is not loaded');
  const current = engine;
  const { wllama, info, vocab } = current;
  const started = performance.now();
  const prompt = await wllama.formatChat(request.messages, true);
  const tokens = await wllama.tokenize(prompt, true);
  if (wllama.mustAddBosToken() && tokens[0] !== wllama.getBOS()) tokens.unshift(wllama.getBOS());
  if (tokens.length + request.maxTokens > info.nCtx) {
    throw new Error(`the prompt (${tokens.length} tokens) and its reply (up to ${request.maxTokens}) do not fit the in-page model's context of ${info.nCtx} tokens; lower the prompt budget or raise the context size in Settings`);
  }
  // `cache: false` reads the prompt from an empty cache and `replay: false` decodes the
  // reply even when the same request was answered before (either way the reply is kept).
  // A grammar the caller did not name (a `fit` alone) makes a request never kept.
  const key = !request.fit || request.grammar ? JSON.stringify([prompt, request.maxTokens, request.grammar ?? null]) : null;
  const kept = key === null || request.cache === false || request.replay === false ? undefined : replies.get(key);
  stats.calls += 1;
  if (kept) {
    replies.delete(key);
    replies.set(key, kept);
    stats.replayed += 1;
    stats.last = { promptTokens: tokens.length, decoded: 0, reused: tokens.length, firstTokenMs: Math.round(performance.now() - started), replayed: true };
    if (kept.text) onDelta?.(kept.text);
    return { ...kept, ms: Math.round(performance.now() - started) };
  }
  await wllama.samplingInit({ temp: 0, top_k: 1 });
  // What the model already read: the cache keeps the tokens of the last call, so only
  // what follows the longest prefix this prompt shares with them is decoded (prompts put
  // their stable part first). At least one token is decoded, for the reply's logits.
  const reused = request.cache === false ? 0 : sharedPrefix(await wllama.getCachedTokens(), tokens);
  if (reused > 0) await wllama.kvRemove(reused, -1);
  else await wllama.kvClear();
  stats.generating = true;
  try {
    const promptStart = performance.now();
    for (let at = reused; at < tokens.length; at += PROMPT_CHUNK) {
      stopped();
      await wllama.decode(tokens.slice(at, at + PROMPT_CHUNK), {});
    }
    stats.promptTokens += tokens.length - reused;
    stats.promptMs += performance.now() - promptStart;
    stats.last = { promptTokens: tokens.length, decoded: tokens.length - reused, reused, firstTokenMs: null, replayed: false };
    const decoder = new TextDecoder();
    let text = '';
    let produced = 0;
    const genStart = performance.now();
    while (produced < request.maxTokens) {
      stopped();
      const token = request.fit ? await constrained(current, text, request.fit) : (await wllama.samplingSample()).token;
      if (token === null || wllama.isTokenEOG(token)) break;
      produced += 1;
      stats.generated += 1;
      stats.last.firstTokenMs ??= Math.round(performance.now() - started);
      const delta = decoder.decode(vocab[token], { stream: true });
      if (delta) {
        text += delta;
        onDelta?.(delta);
      }
      if (request.fit && request.fit(text) === 2) break;
      await wllama.samplingAccept([token]);
      await wllama.decode([token], {});
    }
    const tail = decoder.decode();
    if (tail) {
      text += tail;
      onDelta?.(tail);
    }
    stats.genMs += performance.now() - genStart;
    const seconds = (performance.now() - genStart) / 1000;
    if (produced > 0 && seconds > 0) stats.lastTokensPerSecond = produced / seconds;
    const reply = { text, promptTokens: tokens.length, completionTokens: produced, truncated: produced >= request.maxTokens };
    if (key !== null && current === engine) {
      replies.set(key, reply);
      if (replies.size > REPLIES_KEPT) replies.delete(replies.keys().next().value);
    }
    return { ...reply, ms: Math.round(performance.now() - started) };
  } catch (e) {
    if (e?.name === 'AbortError') stats.stopped += 1;
    // Stopped or failed mid-way: what the cache holds is not known, so the next call
    // starts from an empty one.
    await wllama.kvClear().catch(() => {});
    throw e;
  } finally {
    stats.generating = false;
  }
}

/** How many leading tokens `cached` and `tokens` share, leaving at least the last token
 * of `tokens` to decode. */
function sharedPrefix(cached, tokens) {
  const most = Math.min(cached.length, tokens.length - 1);
  let n = 0;
  while (n < most && cached[n] === tokens[n]) n += 1;
  return n;
}

/** The most likely token that keeps `text` a start of a match: the greedy pick when it
 * fits, else the best of the top 256, else of the whole vocabulary; null when the text is
 * complete and only an end of generation can follow. */
async function constrained({ wllama, pieces }, text, fit) {
  const ok = (token) => {
    if (wllama.isTokenEOG(token) || pieces[token] === '') return false;
    const t0 = performance.now();
    const fits = fit(text + pieces[token]) !== 0;
    stats.grammarChecks += 1;
    stats.grammarMs += performance.now() - t0;
    return fits;
  };
  const { token } = await wllama.samplingSample();
  if (ok(token)) return token;
  for (const k of [256, -1]) {
    stats.widened += 1;
    for (const { token: t } of await wllama.getLogits(k)) {
      if (ok(t)) return t;
    }
  }
  if (fit(text) === 2) return null;
  throw new Error(`no token of the model continues its reply within the reply's grammar after ${JSON.stringify(text.slice(-40))}`);
}

/** Starts a reply and hands back `{ next() }`: each `next()` resolves to `{ delta }` for a
 * new piece or `{ done }` with the result, and rejects with the reply's error. */
export function start(request, fit, signal) {
  const queue = [];
  let wake = null;
  const push = (x) => {
    queue.push(x);
    wake?.();
    wake = null;
  };
  complete({ ...request, fit }, (delta) => push({ delta }), signal).then(
    (done) => push({ done }),
    (error) => push({ error }),
  );
  return {
    async next() {
      while (queue.length === 0) await new Promise((r) => (wake = r));
      const x = queue.shift();
      if (x.error) throw x.error;
      return x;
    },
  };
}
