// The built app's Verify panel against a real local model (llama.cpp's server with
// SmolLM2-135M, started by scripts/local-llm.sh), called cross-origin from the page.
// usage: node real-model.cjs APP_URL MODEL_BASE_URL OUTDIR
// Every check that does not depend on the model's skill must pass; the model-dependent
// figures are printed, not asserted.
const { check, launch, finish, turnsSaid, saidSince } = require('./harness.cjs');

const [url, base, out = 'out'] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    await page.click('text=Settings');
    await page.check('input[name=provider] >> nth=1');
    await page.getByRole('textbox', { name: 'Base URL', exact: true }).fill(base);
    await page.getByRole('textbox', { name: 'Model', exact: true }).fill('smollm2');
    await page.getByRole('spinbutton', { name: 'Timeout (s)', exact: true }).fill('300');
    await page.click('text=Save provider');
    await page.click('[data-testid="test-connection"]');
    await page.waitForFunction(() => /Connected|Not connected/.test(document.querySelector('[data-testid="connection-report"]')?.innerText || ''), null, { timeout: 300000 });
    const tested = await page.locator('[data-testid="connection-report"]').innerText();
    console.log(`# ${tested}`);
    check(tested.startsWith('Connected:') && /model\(s\) listed/.test(tested) && /accepted/.test(tested), 'Test connection against the local model lists it and a JSON mode', tested);
    const label = await page.locator('[data-testid="provider"]').innerText();
    check(label.includes('smollm2') && label.includes(base), 'the provider is the local model', label);
    await page.click('text=Wake & verify');
    await page.click('[data-testid="verify"]');
    await page.waitForSelector('[data-testid="verify-summary"]', { timeout: 20 * 60 * 1000 });
    const lines = await page.locator('[data-testid="checks"] li').allInnerTexts();
    for (const l of lines) console.log(`# ${l}`);
    const summary = await page.locator('[data-testid="verify-summary"]').innerText();
    console.log(`# ${summary}`);
    check(/^(\d+)\/\1 checks/.test(summary), 'every check that does not depend on the model passes in the browser', summary);
    check(lines.some((l) => l.includes('re-audit') && l.startsWith('[OK]')), 'the re-audit finds no bad mutation');
    check(lines.some((l) => l.startsWith('[OK] dry run')), 'the dry run writes nothing');
    check(lines.some((l) => l.startsWith('[OK] no invention')), 'no invented fact survives');
    // The memory is not hollow: the small model chose at least eight of the statements
    // the code offered, and every one still active after the Sleep is traceable.
    const sweep = lines.map((l) => l.match(/no invention: (\d+)\/(\d+)/)).find(Boolean);
    check(sweep && sweep[1] === sweep[2] && Number(sweep[2]) >= 8, 'the small model remembers at least 8 traceable facts', sweep ? sweep[0] : lines.join(' | '));
    check(lines.some((l) => /candidate statement\(s\) offered/.test(l)), 'the encoder offered candidate statements to the small model');
    const byCitation = lines.map((l) => l.match(/quiz recall by citation: (\d+)\/(\d+)/)).find(Boolean);
    check(byCitation && Number(byCitation[1]) >= 3, 'the Wake quiz recalls at least 3 of 5 through citations', lines.find((l) => l.includes('quiz recall')) || '');
    check(lines.some((l) => l.startsWith('[OK] citations within prompts')), 'no answer cites a fact outside its prompt', lines.find((l) => l.includes('citations within')) || '');
    const probe = lines.find((l) => l.includes('forgotten probe:')) || '';
    check(!probe.includes('leakedForgottenContent=true'), 'the forgotten probe does not leak', probe);
    await page.click('text=Settings');
    const mode = await page.locator('[data-testid="json-mode"]').innerText();
    check(mode !== 'not yet probed', 'Settings shows the JSON mode the endpoint got', mode);
    const style = await page.locator('[data-testid="style-in-use"]').innerText();
    check(style.includes('choose from candidates'), 'Settings shows the small model chooses from candidates', style);
    console.log(`# json mode: ${mode}`);
    await page.click('text=Wake & verify');
    await page.screenshot({ path: `${out}/real-model-verify.png`, fullPage: true });

    // Stop a Sleep while the local model is generating: the app aborts the streamed
    // request and llama.cpp's slot is free again (no orphaned generation).
    await page.click('text=Chat, memory & sleep');
    for (const text of ['I live in Ghent and I keep a cat called Miso.', 'I work as a chemist and I prefer green tea.']) {
      const before = await turnsSaid(page);
      await page.fill('#message', text);
      await page.click('.composer button[type=submit]');
      await saidSince(page, before, { timeout: 120000 });
    }
    await page.click('[data-testid="sleep"]');
    await page.waitForSelector('tr[data-pass="promote"].running', { timeout: 120000 });
    await page.click('[data-testid="stop-sleep"]');
    await page.waitForSelector('.sleep p.error', { timeout: 30000 });
    const stopped = await page.locator('.sleep p.error').innerText();
    // A Sleep is planned whole before it writes: stopped while planned, nothing was written.
    check(stopped.includes('stopped by the user') && stopped.includes('nothing was written'),
      'Stop ends a Sleep against the local model, writing nothing', stopped);
    const root = base.replace(/\/v1\/?$/, '');
    let idle = false;
    for (let i = 0; i < 100 && !idle; i += 1) {
      const slots = await (await fetch(`${root}/slots`)).json();
      idle = slots.every((x) => !x.is_processing);
      if (!idle) await new Promise((r) => setTimeout(r, 100));
    }
    check(idle, "the model's slot is free again after the stop (its generation ended)");
  } catch (e) {
    check(false, 'the real-model run completed', String(e));
  }
  await browser.close();
  finish('real model e2e');
})();
