// A memory that has lived for years, in the built app: import a 10,000-fact memory
// (written by `nocturne bench-recall --facts 10000 --export FILE`) and chat with it — with
// the offline provider and, when MODEL_BASE_URL is given, with a real local model whose
// context a whole memory would overflow many times.
// usage: node large.cjs APP_URL MEMORY_FILE OUTDIR [MODEL_BASE_URL]
const { check, launch, finish } = require('./harness.cjs');

const [url, file, out = 'out', model] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    await page.click('text=Settings');
    await page.setInputFiles('[data-testid="import"]', file);
    await page.waitForFunction(() => (document.querySelector('[data-testid="transfer-status"]')?.innerText || '').startsWith('Imported'), null, { timeout: 120000 });
    check(true, 'a 10,000-fact memory file imports');
    await page.click('text=Chat, memory & sleep');
    await page.waitForFunction(() => document.querySelectorAll('[data-block] .fact').length > 8000, null, { timeout: 120000 });
    const facts = await page.locator('[data-block] .fact').count();
    check(facts > 8000, 'the imported memory is active in the app', `${facts} facts`);

    // Over the whole memory a prompt would be ~250,000 tokens; the chat carries what is
    // relevant within the budget, so the planted facts come back.
    const ask = async (text) => {
      const before = await page.locator('.turn.assistant:not(.pending)').count();
      await page.fill('#message', text);
      await page.click('.composer button[type=submit]');
      await page.waitForFunction((b) => document.querySelectorAll('.turn.assistant:not(.pending)').length > b
        || document.querySelector('.chat p.error'), before, { timeout: 10 * 60 * 1000 });
      const error = await page.locator('.chat p.error').count();
      if (error) return { error: await page.locator('.chat p.error').innerText() };
      return { reply: await page.locator('.turn.assistant:not(.pending) .said').last().innerText() };
    };
    const same = await ask('Where does my friend Yul3 live now?');
    check((same.reply || '').includes('Hom3'), 'offline: a fact from the 5,000-fact human block is recalled', JSON.stringify(same));
    const moved = await ask('Where does my friend Yul2 live now?');
    check((moved.reply || '').includes('Wob2') && !(moved.reply || '').includes('Hom2'), 'offline: the current value, not the superseded one', JSON.stringify(moved));
    const scratch = await ask('Where is the spare key for the Yul4 shed?');
    check((scratch.reply || '').includes('Zup4'), 'offline: a scratch note is recalled', JSON.stringify(scratch));
    const never = await ask('Where does my friend Qor7 live now?');
    check((never.reply || '').includes("I don't have that in memory"), 'offline: a never-stated person is not in memory', JSON.stringify(never));
    // A new fact: the next Sleep asks the model about it and its partners only.
    await ask('My friend Yul3 lives in Tamsil9 now.');
    await page.waitForFunction(() => /^Incremental: [1-9]/.test(document.querySelector('[data-testid="sleep-estimate"]')?.innerText || '')
      && !/about 0 model/.test(document.querySelector('[data-testid="sleep-estimate"]')?.innerText || ''), null, { timeout: 60000 }).catch(() => {});
    const estimate = await page.locator('[data-testid="sleep-estimate"]').innerText();
    const calls = Number((estimate.match(/about (\d+) model call/) || [])[1]);
    check(estimate.startsWith('Incremental') && calls > 0 && calls < 50, 'the Sleep panel estimates an incremental Sleep of a few calls before it runs', estimate);
    await page.check('[data-testid="deep-sleep"]');
    await page.waitForFunction(() => (document.querySelector('[data-testid="sleep-estimate"]')?.innerText || '').startsWith('Deep'), null, { timeout: 60000 });
    const deep = await page.locator('[data-testid="sleep-estimate"]').innerText();
    const deepCalls = Number((deep.match(/about (\d+) model call/) || [])[1]);
    check(deepCalls > 20 * calls, 'a deep Sleep is estimated at many times the calls', deep);
    await page.uncheck('[data-testid="deep-sleep"]');
    await page.screenshot({ path: `${out}/20-large-memory.png` });

    if (model) {
      await page.click('text=Settings');
      await page.check('input[name=provider] >> nth=1');
      await page.getByRole('textbox', { name: 'Base URL', exact: true }).fill(model);
      await page.getByRole('textbox', { name: 'Model', exact: true }).fill('smollm2');
      await page.getByRole('spinbutton', { name: 'Timeout (s)', exact: true }).fill('300');
      await page.click('text=Save provider');
      await page.click('text=Chat, memory & sleep');
      const real = await ask('Where does my friend Yul5 live now?');
      console.log(`# the local model answered: ${JSON.stringify(real)}`);
      check(real.reply !== undefined && real.reply.trim().length > 0, 'the real local model answers over a 10,000-fact memory (the prompt fits its context)', JSON.stringify(real));
      await page.screenshot({ path: `${out}/21-large-memory-model.png` });
      // The planted fault: a budget larger than the model's context sends far too much,
      // and the model refuses — so the check above can fail.
      await page.click('text=Settings');
      await page.fill('[data-testid="prompt-budget"]', '400000');
      await page.press('[data-testid="prompt-budget"]', 'Enter');
      await page.locator('[data-testid="prompt-budget"]').blur();
      await page.click('text=Save provider');
      await page.click('text=Chat, memory & sleep');
      const over = await ask('Where does my friend Yul5 live now?');
      check(over.error !== undefined, 'with the budget set past the model\'s context the same question fails with a message', JSON.stringify(over).slice(0, 300));
    }
    check(errors.length === 0, 'no page errors', errors.join(' | '));
  } catch (e) {
    check(false, 'the large-memory walk-through ran to the end', String(e));
    await page.screenshot({ path: `${out}/large-failure.png` }).catch(() => {});
  }
  await browser.close();
  finish('large memory');
})();
