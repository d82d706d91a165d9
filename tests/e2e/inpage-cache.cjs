// The in-page model reads a prompt's shared start once: a follow-up on the same memory
// decodes only what is new, and answers as it would from an empty cache; a prompt whose
// memory changed is read again from the change. The same checks run against a planted
// fault — a runtime that keeps the cache by length, across a change of memory — and must
// catch it. Prints a `cache:` line with the figures.
// usage: node inpage-cache.cjs APP_URL GGUF_FILE
const { check, launch, finish } = require('./harness.cjs');

const [url, gguf] = process.argv.slice(2);

// A memory of twenty-four facts (about 560 tokens with the instructions), the question, and the same memory with its
// first fact changed.
const facts = Array.from({ length: 24 }, (_, i) => `[${i + 1}] I keep note ${i + 1}: the ${['red', 'blue', 'green', 'amber'][i % 4]} box on shelf ${i + 3} holds ${['stamps', 'keys', 'letters', 'seeds', 'coins'][i % 5]}.`);
const system = (lines) => `You are Nocturne, an assistant whose memory is listed below. Keep replies short.\nMEMORY:\n${lines.join('\n')}\n`;
const first = [{ role: 'system', content: system(facts) }, { role: 'user', content: 'What does the box on shelf 5 hold?' }];
const changed = [{ role: 'system', content: system(['[1] I keep note 1: the red box on shelf 3 holds old maps.', ...facts.slice(1)]) }, first[1]];

/** Runs the cache checks against the runtime module at `module` in the page; returns
 * what each step measured. */
async function measure(page, module) {
  return page.evaluate(async ({ module, first, changed }) => {
    const rt = await import(new URL(module, document.baseURI).href);
    await rt.load({ nCtx: 2048, threads: 1 });
    // The KV cache is what is measured: a reply already produced is given again only
    // where asked for (`replay`).
    const ask = async (messages, cache, replay = false) => {
      const r = await rt.complete({ messages, maxTokens: 24, cache, replay });
      return { text: r.text, ...rt.stats.last };
    };
    const out = {};
    out.cold = await ask(first, false);
    out.again = await ask(first);
    out.replayed = await ask(first, undefined, true);
    const followup = [...first, { role: 'assistant', content: out.cold.text }, { role: 'user', content: 'And the box on shelf 6?' }];
    out.followup = await ask(followup);
    out.followupCold = await ask(followup, false);
    // Warm the cache with the first memory, then ask about the changed one.
    await ask(first);
    out.changed = await ask(changed);
    out.changedCold = await ask(changed, false);
    out.fresh = await ask([first[0], { role: 'user', content: 'And the box on shelf 9?' }], undefined, true);
    await rt.unload();
    return out;
  }, { module, first, changed });
}

/** `measure`, bounded: a run that has not ended in `minutes` (once seen: the runtime's
 * machine idle, the cause not found) is given up, and tried once more in a fresh
 * page of the same origin (the model file stays in its private files). */
async function bounded(context, page, module, minutes = 6) {
  const within = (p) => Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error(`no answer in ${minutes} min`)), minutes * 60000))]);
  try {
    return { page, m: await within(measure(page, module)) };
  } catch (e) {
    console.log(`# ${module}: ${e.message}; trying once more in a fresh page`);
    await page.close().catch(() => {});
    const fresh = await context.newPage();
    await fresh.goto(url);
    await fresh.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    return { page: fresh, m: await within(measure(fresh, module)) };
  }
}

/** The checks: true when every one held. `say(cond, what, detail)` records each. */
function judge(m, say) {
  let all = true;
  const c = (cond, what, detail) => { all = all && cond; say(cond, what, detail); };
  c(m.cold.decoded === m.cold.promptTokens && m.cold.promptTokens > 400, 'without the cache the whole prompt is read', JSON.stringify(m.cold));
  c(m.again.decoded === 1 && m.again.text === m.cold.text, 'the same prompt again reads one token and gives the same reply', JSON.stringify(m.again));
  c(m.replayed.replayed === true && m.replayed.decoded === 0 && m.replayed.text === m.cold.text,
    'a request answered before is given the same reply without reading its prompt', JSON.stringify(m.replayed));
  c(m.fresh.replayed === false && m.fresh.decoded > 0, 'a request not answered before is decoded, not given another\'s reply', JSON.stringify(m.fresh));
  c(m.followup.reused >= m.cold.promptTokens - 8 && m.followup.decoded < 80, 'a follow-up on the same memory reads only its new turns', JSON.stringify(m.followup));
  c(m.followup.text === m.followupCold.text, 'the follow-up\'s reply is the one an empty cache gives', `${m.followup.text} | ${m.followupCold.text}`);
  // The change is in the first fact's last words: what comes before it (the instructions
  // and that fact's start, under 60 tokens) is all that may be reused.
  c(m.changed.reused > 0 && m.changed.reused < 60 && m.changed.decoded === m.changed.promptTokens - m.changed.reused,
    'a prompt whose memory changed is read again from the change', JSON.stringify(m.changed));
  c(m.changed.text === m.changedCold.text, 'after a change of memory the reply is the one an empty cache gives', `${m.changed.text} | ${m.changedCold.text}`);
  return all;
}

(async () => {
  const browser = await launch();
  const context = await browser.newContext();
  let page = await context.newPage();
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    // The model file is kept in the origin's private files, as the Settings picker does.
    await page.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.id = 'gguf'; document.body.append(i); });
    await page.setInputFiles('#gguf', gguf);
    await page.evaluate(async () => {
      const m = await import(new URL('inpage/models.js', document.baseURI).href);
      await m.keep(document.getElementById('gguf').files[0]);
    });

    let m;
    ({ page, m } = await bounded(context, page, 'inpage/runtime.js'));
    judge(m, check);
    console.log(`cache: promptTokens=${m.cold.promptTokens} coldFirstTokenS=${(m.cold.firstTokenMs / 1000).toFixed(2)} followupDecoded=${m.followup.decoded} followupFirstTokenS=${(m.followup.firstTokenMs / 1000).toFixed(2)} followupColdFirstTokenS=${(m.followupCold.firstTokenMs / 1000).toFixed(2)} changedDecoded=${m.changed.decoded}`);

    // The planted fault: a copy of the runtime that trusts the cache by length alone.
    const source = await (await page.request.get(new URL('inpage/runtime.js', url).href)).text();
    const faulty = source.replace('cached[n] === tokens[n]', 'true');
    check(faulty !== source, 'the fault is planted in a copy of the runtime');
    await context.route('**/inpage/runtime-planted-fault.js', (r) => r.fulfill({ body: faulty, contentType: 'text/javascript' }));
    const planted = await bounded(context, page, 'inpage/runtime-planted-fault.js');
    page = planted.page;
    const f = planted.m;
    const failed = [];
    judge(f, (cond, what) => { if (!cond) failed.push(what); });
    console.log(`# the planted fault fails: ${failed.join('; ') || 'nothing'}`);
    check(failed.length > 0, 'the checks catch a cache kept across a change of memory', JSON.stringify(f.changed));

    // A second planted fault: replies kept by their token limit and grammar, not their prompt.
    const loose = source.replace('JSON.stringify([prompt, request.maxTokens', 'JSON.stringify([request.maxTokens');
    check(loose !== source, 'the second fault is planted in a copy of the runtime');
    await context.route('**/inpage/runtime-planted-replay.js', (r) => r.fulfill({ body: loose, contentType: 'text/javascript' }));
    const replayed = await bounded(context, page, 'inpage/runtime-planted-replay.js');
    page = replayed.page;
    const wrong = [];
    judge(replayed.m, (cond, what) => { if (!cond) wrong.push(what); });
    console.log(`# the replay fault fails: ${wrong.join('; ') || 'nothing'}`);
    check(wrong.some((w) => w.includes('not given another')), 'the checks catch a reply given for another prompt', JSON.stringify(replayed.m.fresh));
  } catch (e) {
    check(false, 'the cache checks ran', String(e));
  }
  await browser.close();
  finish('in-page cache');
})();
