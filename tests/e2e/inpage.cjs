// A real model inside the page: SmolLM2-135M picked through the file input, run by
// llama.cpp compiled to WebAssembly in a worker, with no model file on the page's origin
// and every request to any other origin cut. It chats (streamed), is stopped mid-reply
// (the worker stops generating), sleeps, passes the Verify panel's required checks, and
// after an offline reload chats again from the kept file. Prints the in-page figures.
// usage: node inpage.cjs APP_URL GGUF_FILE DIST_DIR OUTDIR
const fs = require('fs');
const path = require('path');
const { check, launch, finish, builtRuntime, turnsSaid, saidSince } = require('./harness.cjs');

const [url, gguf, dist, out = 'out'] = process.argv.slice(2);
const origin = new URL(url).origin;
const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

/** Every file under `dir`. */
const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));

/** The in-page runtime's counters (the module the app imported: one instance per page),
 * also left on `window.inpageStats` for the synchronous predicates of waitForFunction
 * (it treats a returned promise as a truthy value and would not wait). */
const stats = (page) => page.evaluate(async () => {
  const m = await import(new URL('inpage/runtime.js', document.baseURI).href);
  window.inpageStats = m.stats;
  return { ...m.stats };
});

/** Sends a chat message and waits for its reply; returns the reply and the seconds it took. */
async function chat(page, text, timeout = 300000) {
  const before = await turnsSaid(page);
  const t0 = Date.now();
  await page.fill('#message', text);
  await page.click('.composer button[type=submit]');
  await saidSince(page, before, { timeout });
  const reply = await page.locator('.turn:not(.pending)').last().innerText();
  return { reply, seconds: (Date.now() - t0) / 1000 };
}

(async () => {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const requests = [];
  await context.route('**/*', (route) => {
    const u = route.request().url();
    requests.push(u);
    return new URL(u).origin === origin ? route.continue() : route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const served = walk(dist).filter((f) => /\.gguf$/i.test(f));
    check(served.length === 0, 'no model file is served from the page\'s origin', served.join(', '));
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    await page.evaluate(() => navigator.serviceWorker.ready);
    check(!requests.some((u) => u.includes('/inpage/')), 'the in-page runtime is not loaded until it is chosen');

    // A site may offer a model from its own origin (scripts/serve.sh does when it finds
    // one); this one offers a file that is not a model, answered by the test, not served.
    await page.route('**/models/index.json', (r) => r.fulfill({ json: [{ name: 'offered.gguf', size: 26 }] }));
    await page.route('**/models/offered.gguf', (r) => r.fulfill({ body: 'this is not a model at all' }));
    await page.click('text=Settings');
    await page.check('[data-testid="provider-inpage"]');
    await page.waitForSelector('[data-testid="gguf-kept"]:has-text("No model kept yet")');
    const offer = await page.locator('[data-testid="gguf-offered"]').innerText({ timeout: 10000 }).catch(() => '');
    check(offer.includes('offered.gguf'), 'Settings shows a model the site offers', offer);
    await page.click('[data-testid="gguf-keep-offered"]');
    await page.waitForSelector('[data-testid="inpage-status"] .error:has-text("offered.gguf")');
    const offeredRefused = await page.locator('[data-testid="inpage-status"]').innerText();
    check(/not a GGUF model file/.test(offeredRefused), 'an offered file that is not a GGUF is refused too', offeredRefused);
    await page.unroute('**/models/index.json');
    await page.unroute('**/models/offered.gguf');
    const note = await page.locator('[data-testid="inpage-threads-note"]').innerText();
    check(/single-threaded|multi-threaded/.test(note), 'Settings says whether the model runs multi-threaded', note);
    await page.locator('[data-testid="inpage"]').screenshot({ path: `${out}/inpage-picker.png` });

    // A file that is not a GGUF is refused with a message, and nothing is kept.
    await page.setInputFiles('[data-testid="gguf-file"]', { name: 'notes.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('hello, this is not a model') });
    await page.waitForSelector('[data-testid="inpage-status"] .error:has-text("notes.gguf")');
    const refused = await page.locator('[data-testid="inpage-status"]').innerText();
    check(/not a GGUF model file/.test(refused), 'a file that is not a GGUF is refused with a clear message', refused);
    check((await page.locator('[data-testid="gguf-kept"]').innerText()).includes('No model kept'), 'the refused file is not kept');

    // The real file, through the file input: a progress bar while it is kept.
    const t0 = Date.now();
    await page.setInputFiles('[data-testid="gguf-file"]', gguf);
    const bar = await page.waitForSelector('[data-testid="gguf-progress"]', { timeout: 30000 }).then(() => true, () => false);
    if (bar) await page.locator('[data-testid="inpage"]').screenshot({ path: `${out}/inpage-progress.png` });
    check(bar, 'a progress bar shows while the file is read and kept');
    await page.waitForSelector('[data-testid="gguf-kept"]:has-text("Kept:")', { timeout: 120000 });
    const keepSeconds = (Date.now() - t0) / 1000;
    // Then it loads into the page (a bar with no fraction while it does), and says so.
    await page.waitForSelector('[data-testid="inpage-status"] .ok, [data-testid="inpage-status"] .error', { timeout: 300000 });
    const ready = await page.locator('[data-testid="inpage-status"]').innerText();
    check(/loaded it in \d+ ms/.test(ready), 'a kept model is loaded into the page at once', ready);
    const kept = await page.locator('[data-testid="gguf-kept"]').innerText();
    check(kept.includes(path.basename(gguf)), 'Settings shows the kept model\'s name and size', kept);
    await page.click('text=Save provider');
    const t1 = Date.now();
    await page.click('[data-testid="test-connection"]');
    await page.waitForFunction(() => /Loaded|Not loaded/.test(document.querySelector('[data-testid="connection-report"]')?.innerText || ''), null, { timeout: 300000 });
    const loaded = await page.locator('[data-testid="connection-report"]').innerText();
    const loadSeconds = (Date.now() - t1) / 1000;
    check(loaded.startsWith('Loaded'), 'the model loads into the page', loaded);
    const info = await page.evaluate(async () => (await import(new URL('inpage/runtime.js', document.baseURI).href)).loaded());
    check(loaded.includes(`runtime: ${info.runtimeDetail}`) && loaded.includes(info.quant), 'the load report names the runtime and the quantisation', loaded);
    // The runtime built here (scripts/setup.sh) is the one the page must run when it exists;
    // the npm build is only the fallback.
    const built = builtRuntime(info.multiThread ? 'multi' : 'single');
    check(info.runtime === (built ? 'built' : 'npm'), `the page runs the ${built ? 'runtime built with wasm SIMD' : 'npm runtime (none was built)'}`, JSON.stringify(info));
    // Quantisations with a wasm SIMD dot product in llama.cpp (ggml-cpu/arch/wasm/quants.c).
    const KERNELS = ['Q4_0', 'Q5_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K_S', 'Q3_K_M', 'Q3_K_L', 'Q4_K_S', 'Q4_K_M', 'Q5_K_S', 'Q5_K_M', 'Q6_K'];
    check(KERNELS.includes(info.quant), `the model the page is given is in a quantisation with wasm SIMD kernels (${info.quant})`, JSON.stringify(info));
    check(requests.some((u) => u.endsWith('/wllama.wasm')), 'the runtime\'s wasm came from the page\'s origin once chosen');
    const label = await page.locator('[data-testid="provider"]').innerText();
    check(label.includes('in this browser'), 'the provider label says the model runs in this browser', label);
    await page.locator('[data-testid="inpage"]').screenshot({ path: `${out}/inpage-loaded.png` });

    // Chat, streamed from the worker.
    await page.click('text=Chat, memory & sleep');
    const first = await chat(page, 'I live in Ghent and I keep a cat called Miso.');
    console.log(`# reply (${first.seconds.toFixed(1)} s): ${first.reply.replace(/\s+/g, ' ').slice(0, 200)}`);
    check(first.reply.trim().length > 0, 'the in-page model answers a chat message');
    const s1 = await stats(page);
    check(s1.generated > 0 && s1.lastTokensPerSecond > 0, 'the worker generated the reply token by token', JSON.stringify(s1));
    const second = await chat(page, 'I work as a chemist and I prefer green tea.');
    await page.screenshot({ path: `${out}/inpage-chat.png` });

    // Stop mid-reply: the page stops waiting and the worker stops generating. A small model
    // answers by choosing a line (a few tokens), so for this the style is free text.
    const style = async (value) => {
      await page.click('text=Settings');
      await page.selectOption('[data-testid="proposal-style"]', value);
      await page.click('text=Save provider');
      await page.click('text=Chat, memory & sleep');
    };
    await style('free-text');
    await page.fill('#message', 'Tell me a long story about everything you know about me, in great detail, with many chapters.');
    await page.click('.composer button[type=submit]');
    // The reply is streaming: the pending assistant turn shows its first words.
    await page.waitForFunction(() => (document.querySelector('.turn.assistant.pending .said')?.innerText.length ?? 0) > 30,
      null, { timeout: 120000, polling: 50 });
    const beforeStop = await stats(page);
    await page.click('[data-testid="stop-chat"]');
    // The loop looks at the signal between two tokens: wait for it (a busy machine is slow).
    await page.waitForFunction((n) => window.inpageStats.stopped > n, beforeStop.stopped, { timeout: 30000, polling: 100 })
      .catch(() => {});
    const atStop = await stats(page);
    check(beforeStop.generating, 'the reply was still being generated when Stop was pressed', JSON.stringify(beforeStop));
    // The worker's loop saw the signal and ended that reply (the user's turn is then
    // encoded, a new call, so token counts alone would not tell).
    check(atStop.stopped === beforeStop.stopped + 1, 'Stop ends the worker\'s generation, not only the page\'s wait', `${JSON.stringify(beforeStop)} → ${JSON.stringify(atStop)}`);
    await page.waitForFunction(() => !document.querySelector('.turn.pending'), null, { timeout: 300000 });
    const cut = await page.locator('.turn:not(.pending)').last().innerText();
    check(cut.includes('[stopped by the user]'), 'the stopped reply keeps what was streamed, marked as stopped', cut.slice(-120));
    await style('auto');

    // A Sleep with the in-page model: every proposal gated and logged.
    const t2 = Date.now();
    await page.click('[data-testid="sleep"]');
    await page.waitForSelector('[data-testid="sleep-summary"], .sleep p.error', { timeout: 30 * 60 * 1000 });
    const sleepSeconds = (Date.now() - t2) / 1000;
    const summary = await page.locator('[data-testid="sleep-summary"], .sleep p.error').first().innerText();
    console.log(`# sleep (${sleepSeconds.toFixed(0)} s): ${summary}`);
    check(await page.locator('[data-testid="sleep-summary"]').count() === 1, 'a Sleep with the in-page model completes', summary);

    // A question answered by choosing: the reply quotes the fact the model chose, shows it as
    // a chip, and lists the memory its prompt carried.
    const asked = await chat(page, 'Where do I live?');
    console.log(`# choose reply (${asked.seconds.toFixed(1)} s): ${asked.reply.replace(/\s+/g, ' ').slice(0, 200)}`);
    const last = page.locator('.turn.assistant:not(.pending)').last();
    const said = await last.locator('.said').innerText();
    const chips = await last.locator('[data-testid="cite"]').allInnerTexts();
    const usedTitle = await last.locator('[data-testid="memory-used"] summary').innerText().catch(() => '');
    check(/memory used \([1-9]\d*\)/.test(usedTitle), 'the in-page reply shows the memory it used', usedTitle);
    check(said.startsWith('From memory, said ') && chips.length === 1 && said.includes(chips[0].split(' · ').slice(1).join(' · ').replace(/…$/, '')),
      'the in-page model chose a fact: the reply quotes it and shows it as a chip', `${said} | ${chips.join(' | ')}`);
    await last.locator('[data-testid="memory-used"] summary').click().catch(() => {});
    await last.screenshot({ path: `${out}/inpage-citations.png` });

    // INPAGE_QUICK=1 (the benchmark, development) leaves out Verify and the offline reload.
    let verifySeconds = NaN;
    // The counters of this page's runtime (an offline reload starts a new one).
    let s2 = await stats(page);
    if (!process.env.INPAGE_QUICK) {
      // The Verify panel, its required checks passing with real evidence.
      const t3 = Date.now();
      const before = await stats(page);
      await page.click('text=Wake & verify');
      await page.click('[data-testid="verify"]');
      await page.waitForSelector('[data-testid="verify-summary"]', { timeout: 40 * 60 * 1000 });
      verifySeconds = (Date.now() - t3) / 1000;
      const lines = await page.locator('[data-testid="checks"] li').allInnerTexts();
      for (const l of lines) console.log(`# ${l}`);
      const vsummary = await page.locator('[data-testid="verify-summary"]').innerText();
      console.log(`# ${vsummary} (${verifySeconds.toFixed(0)} s)`);
      check(/^(\d+)\/\1 checks/.test(vsummary), 'every required Verify check passes with the in-page model', vsummary);
      const sweep = lines.map((l) => l.match(/no invention: (\d+)\/(\d+)/)).find(Boolean);
      check(sweep && sweep[1] === sweep[2] && Number(sweep[2]) >= 8, 'the in-page model remembers at least 8 traceable facts', sweep ? sweep[0] : lines.join(' | '));
      const byCitation = lines.map((l) => l.match(/quiz recall by citation: (\d+)\/(\d+)/)).find(Boolean);
      check(byCitation && Number(byCitation[1]) >= 3, 'the in-page Wake quiz recalls at least 3 of 5 through citations', lines.find((l) => l.includes('quiz recall')) || '');
      check(lines.some((l) => l.startsWith('[OK] citations within prompts')), 'no in-page answer cites a fact outside its prompt', lines.find((l) => l.includes('citations within')) || '');
      const probe = lines.find((l) => l.includes('forgotten probe:')) || '';
      check(!probe.includes('leakedForgottenContent=true'), 'the forgotten probe does not leak', probe);
      await page.screenshot({ path: `${out}/inpage-verify.png`, fullPage: true });
      s2 = await stats(page);
      // Where Verify's time went: the model's calls, the prompt tokens read and the tokens produced.
      const spent = (k) => s2[k] - before[k];
      console.log(`verify-cost: seconds=${verifySeconds.toFixed(0)} calls=${spent('calls')} replayed=${spent('replayed')} promptTokens=${spent('promptTokens')} promptS=${(spent('promptMs') / 1000).toFixed(0)} generated=${spent('generated')} genS=${(spent('genMs') / 1000).toFixed(0)} grammarS=${(spent('grammarMs') / 1000).toFixed(1)}`);

      // The dry run and the real Sleep ask the model the same things: the greedy runtime
      // gives the replies it already produced instead of decoding them again.
      check(spent('replayed') >= 3, 'Verify\'s repeated requests are answered from the replies already produced', `replayed ${spent('replayed')} of ${spent('calls')} calls`);

      // Offline: the page, the runtime and the model all come from this browser.
      await context.setOffline(true);
      await page.reload();
      await page.waitForSelector('[data-block="scratch"]', { timeout: 60000 });
      const provider = await page.locator('[data-testid="provider"]').innerText();
      check(provider.includes('in this browser'), 'after an offline reload the in-page provider is still chosen', provider);
      const again = await chat(page, 'Where do I live?');
      console.log(`# offline reply (${again.seconds.toFixed(1)} s): ${again.reply.replace(/\s+/g, ' ').slice(0, 200)}`);
      check(again.reply.trim().length > 0 && !/failed|could not/i.test(again.reply), 'offline, after a reload, the kept model answers without a second pick', again.reply.slice(0, 200));
      await context.setOffline(false);
    }
    check(!requests.some((u) => new URL(u).origin !== origin), 'nothing was requested from another origin', requests.filter((u) => new URL(u).origin !== origin).join(', '));
    check(errors.length === 0, 'no uncaught page errors', errors.join(' | '));
    console.log(`bench: in-page ${path.basename(gguf)} keepS=${keepSeconds.toFixed(1)} loadS=${loadSeconds.toFixed(1)} firstReplyS=${first.seconds.toFixed(1)} secondReplyS=${second.seconds.toFixed(1)} tokensPerS=${s2.lastTokensPerSecond.toFixed(1)} promptTokensPerS=${(s2.promptTokens / (s2.promptMs / 1000)).toFixed(0)} grammarChecks=${s2.grammarChecks} grammarMsPerCheck=${(s2.grammarMs / Math.max(1, s2.grammarChecks)).toFixed(2)} widened=${s2.widened} sleepS=${sleepSeconds.toFixed(0)} verifyS=${Number.isNaN(verifySeconds) ? 'skipped' : verifySeconds.toFixed(0)} threads=${info.threads} runtime=${info.runtime} quant=${info.quant} flashAttn=${info.flashAttn} kv=${info.kvType} total=${since()}`);
  } catch (e) {
    check(false, 'the in-page model run completed', String(e));
    await page.screenshot({ path: `${out}/inpage-failure.png`, fullPage: true }).catch(() => {});
  }
  await browser.close();
  finish('in-page model');
})();
