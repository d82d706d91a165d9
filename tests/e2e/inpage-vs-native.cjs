// The in-page model beside llama.cpp's native server, in one run, on the same prompts: a
// memory prompt of about 2,000 tokens read cold (no cache on either side), then a
// follow-up message on the same memory (the page's kept cache; the server's slot cache).
// Prints one line to grep:
//   inpage-vs-native: promptTokens= pageTtftS= nativeTtftS= ratio= pageFollowupTtftS=
//     nativeFollowupTtftS= pagePromptTokS= nativePromptTokS= pageGenTokS= nativeGenTokS=
//     threads= runtime= quant= flashAttn= kv=
// and checks only that both sides answered, that the page's reply opens as the native
// server's does (its kernels compute what llama.cpp's native ones do), that the page's
// follow-up read only its new turns and that two threads run the multi-thread runtime
// built here when it was built (the speed itself is a figure, measured, not a pass mark).
// The page runs one thread and, cross-origin isolated, two (what Settings' auto picks on
// two cores, and what the native server reads prompts with, `-tb 2`) with the runtime's
// default options (INPAGE_THREADS=N: only N); INPAGE_OPTIONS=both (scripts/bench.sh) adds a line for llama.cpp's own defaults
// (flash attention auto, f16 cache), the other side of that choice. INPAGE_BUSY=1 keeps one
// core busy (a spinning process) while the page side runs, as anything else the machine
// does would: the line then says busy=1 (the native side is always measured quiet).
// usage: node inpage-vs-native.cjs APP_URL GGUF_FILE NATIVE_V1_URL
const { check, launch, finish, builtRuntime } = require('./harness.cjs');

const [url, gguf, native] = process.argv.slice(2);

// Forty-eight notes under instructions, as a chat prompt's memory section reads: ~2,000 tokens.
const facts = Array.from({ length: 48 }, (_, i) => `${i + 1}. (scratch, said 2024-03-${String((i % 28) + 1).padStart(2, '0')}) I keep note ${i + 1}: the ${['red', 'blue', 'green', 'amber'][i % 4]} box on shelf ${i + 3} holds ${['stamps', 'keys', 'letters', 'seeds', 'coins'][i % 5]}.`);
const system = `You are Nocturne, an assistant with a memory that sleeps. Answer from the memory below; keep replies short.\nMEMORY (48 facts):\n${facts.join('\n')}\n`;
const first = [{ role: 'system', content: system }, { role: 'user', content: 'What does the box on shelf 5 hold?' }];
const MAX = 32;
const THREADS = process.env.INPAGE_THREADS ? [Number(process.env.INPAGE_THREADS)] : [1, 2];
// A load that has not answered in this long never will (a pthread that cannot start its
// script leaves the runtime waiting for it).
const LOAD_TIMEOUT_MS = Number(process.env.INPAGE_LOAD_TIMEOUT_S || 300) * 1000;
const multiBuilt = builtRuntime('multi');
const BUSY = process.env.INPAGE_BUSY === '1';

/** One request to the native server: its timings (llama.cpp's own, in ms) and reply. */
async function nativeCall(messages, cache) {
  const t0 = Date.now();
  const r = await fetch(`${native}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'smollm2', messages, max_tokens: MAX, temperature: 0, top_k: 1, cache_prompt: cache, stream: false }),
  });
  const body = await r.json();
  const t = body.timings || {};
  const perToken = t.predicted_n ? t.predicted_ms / t.predicted_n : 0;
  return {
    text: body.choices?.[0]?.message?.content ?? '',
    promptTokens: body.usage?.prompt_tokens ?? t.prompt_n,
    decoded: t.prompt_n,
    ttftMs: (t.prompt_ms ?? 0) + perToken,
    promptTokS: t.prompt_per_second,
    genTokS: t.predicted_per_second,
    wallMs: Date.now() - t0,
  };
}

(async () => {
  const browser = await launch();
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    await page.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'gguf'; document.body.append(i); });
    await page.setInputFiles('#gguf', gguf);
    const isolated = await page.evaluate(() => globalThis.crossOriginIsolated);
    const variants = THREADS.filter((t) => t === 1 || isolated).map((threads) => ({ threads }));
    if (process.env.INPAGE_OPTIONS === 'both') variants.push({ threads: 1, flashAttn: true, kvType: 'f16' });
    await page.evaluate(async () => {
      const models = await import(new URL('inpage/models.js', document.baseURI).href);
      await models.keep(document.getElementById('gguf').files[0]);
    });
    const pageSides = [];
    const busy = BUSY ? require('child_process').spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }) : null;
    try {
    for (const options of variants) {
      pageSides.push(await page.evaluate(async ({ first, MAX, options, LOAD_TIMEOUT_MS }) => {
        const rt = await import(new URL('inpage/runtime.js', document.baseURI).href);
        const late = new Promise((_, no) => setTimeout(() => no(new Error(`loading with ${JSON.stringify(options)} did not answer in ${LOAD_TIMEOUT_MS / 1000} s`)), LOAD_TIMEOUT_MS));
        const info = await Promise.race([rt.load({ nCtx: 4096, ...options }), late]);
        const ask = async (messages, cache) => {
          const t0 = performance.now();
          const r = await rt.complete({ messages, maxTokens: MAX, cache });
          const last = rt.stats.last;
          return { text: r.text, promptTokens: last.promptTokens, decoded: last.decoded, ttftMs: last.firstTokenMs, genTokS: rt.stats.lastTokensPerSecond, wallMs: performance.now() - t0 };
        };
        const cold = await ask(first, false);
        const followup = [...first, { role: 'assistant', content: cold.text }, { role: 'user', content: 'And the box on shelf 6?' }];
        const next = await ask(followup);
        await rt.unload();
        return { info, cold, next, followup };
      }, { first, MAX, options, LOAD_TIMEOUT_MS }));
    }
    } finally {
      if (busy) busy.kill();
    }
    const pageSide = pageSides[0];
    const cold = await nativeCall(first, false);
    await nativeCall(pageSide.followup.slice(0, 2), true); // the slot holds the memory, as after the first reply
    const next = await nativeCall(pageSide.followup, true);
    const s = (ms) => (ms / 1000).toFixed(2);
    check(cold.text.length > 0, 'the native server answered the 2,000-token memory prompt', JSON.stringify(cold.text));
    // Greedy decoding of the same weights: the page's reply opens with the native server's
    // words ("The box on shelf 5 holds…", a 135M model's reading of the memory), so the
    // page's own kernels compute what llama.cpp's native ones do; a kernel that drops or
    // misplaces products answers something else from the first tokens. Rounding differs
    // between the two (wasm's kernels, x86's), so only the opening six words are compared.
    const opening = (text) => text.trim().split(/\s+/).slice(0, 6).join(' ').toLowerCase();
    for (const side of pageSides) {
      const p = side.cold;
      const i = side.info;
      const what = `threads=${i.threads} runtime=${i.runtime} quant=${i.quant} flashAttn=${i.flashAttn} kv=${i.kvType} busy=${BUSY ? 1 : 0}`;
      check(p.text.length > 0, `the page answered the 2,000-token memory prompt (${what})`, JSON.stringify(p.text));
      check(opening(p.text) === opening(cold.text), `the page's reply opens as the native server's does (${what})`, JSON.stringify({ page: p.text, native: cold.text }));
      check(p.promptTokens > 1700 && p.promptTokens < 2400, 'the memory prompt is about 2,000 tokens', `${p.promptTokens}`);
      check(side.next.decoded < 80, "the page's follow-up reads only its new turns", JSON.stringify(side.next));
      if (i.threads > 1 && multiBuilt) {
        check(i.multiThread && i.runtime === 'built', `${i.threads} threads run the multi-thread runtime built here`, JSON.stringify(i));
      }
      const pagePromptTokS = p.promptTokens / (p.ttftMs / 1000);
      console.log(`inpage-vs-native: promptTokens=${p.promptTokens} pageTtftS=${s(p.ttftMs)} nativeTtftS=${s(cold.ttftMs)} ratio=${(p.ttftMs / cold.ttftMs).toFixed(1)} pageFollowupTtftS=${s(side.next.ttftMs)} nativeFollowupTtftS=${s(next.ttftMs)} pagePromptTokS=${pagePromptTokS.toFixed(0)} nativePromptTokS=${(cold.promptTokS ?? 0).toFixed(0)} pageGenTokS=${(p.genTokS ?? 0).toFixed(1)} nativeGenTokS=${(cold.genTokS ?? 0).toFixed(1)} ${what}`);
    }
  } catch (e) {
    check(false, 'the side-by-side measurement ran to the end', String(e));
  }
  await browser.close();
  finish('in-page vs native');
})();
