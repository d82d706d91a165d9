// End-to-end: memory commands said in the chat (issue 67) on the built page, offline
// provider. usage: node told.cjs URL OUTDIR
// "Forget that I'm vegan" retires that fact as the user's edit, shown under the turn with
// an Undo that brings it back; an ambiguous command asks and changes nothing; "remind me to
// call the vet tomorrow" keeps a commitment the memory panel shows as due tomorrow.
const { check, launch, finish, say } = require('./harness.cjs');

const [url, out = 'out'] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  const facts = () => page.locator('[data-block="scratch"] .fact').allInnerTexts();
  const told = () => page.locator('[data-testid="told"]').allInnerTexts();
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    await say(page, "I'm vegan. I have a cat called Miso. My sister has a cat called Tiger.");
    await page.waitForFunction(() => document.querySelectorAll('[data-block="scratch"] .fact').length === 3, null, { timeout: 10000 });

    await say(page, "Please forget that I'm vegan.");
    await page.waitForSelector('[data-testid="told"]', { timeout: 10000 });
    const forgot = await told();
    check(forgot.length === 1 && /forgot m_\d+ “I'm vegan\.”/.test(forgot[0]) && forgot[0].includes('Undo'), 'forget that I\'m vegan: shown under the turn, with an Undo', forgot.join(' | '));
    await page.waitForFunction(() => ![...document.querySelectorAll('[data-block="scratch"] .fact')].some((f) => f.innerText.includes('vegan')), null, { timeout: 10000 });
    check(!(await facts()).some((f) => f.includes('vegan')), 'the fact left the memory panel');
    await page.screenshot({ path: `${out}/told-01-forgot.png`, fullPage: true });
    await page.click('[data-testid="told-undo"]');
    await page.waitForSelector('[data-testid="told-undone"]', { timeout: 10000 });
    const undone = await page.locator('[data-testid="told-undone"]').innerText();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-block="scratch"] .fact')].some((f) => f.innerText.includes('vegan')), null, { timeout: 10000 }).catch(() => {});
    check(undone === 'Undone.' && (await facts()).some((f) => f.includes("I'm vegan.")), 'one click on Undo brings the fact back', `${undone} | ${(await facts()).join(' | ')}`);

    const before = await facts();
    await say(page, 'Forget about the cat.');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="told"]')].some((t) => t.innerText.includes('which should I forget')), null, { timeout: 10000 });
    const asked = await told();
    check(asked.length === 1 && asked[0].includes('2 facts match; which should I forget?') && !asked[0].includes('Undo'), 'an ambiguous command asks which', asked.join(' | '));
    check(JSON.stringify(await facts()) === JSON.stringify(before), 'and changes nothing', (await facts()).join(' | '));
    await page.screenshot({ path: `${out}/told-02-asks.png`, fullPage: true });

    await say(page, 'Remind me to call the vet tomorrow.');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="told"]')].some((t) => t.innerText.includes('reminder')), null, { timeout: 10000 });
    const reminded = await told();
    check(reminded.length === 1 && /as a reminder, due \d{4}-\d{2}-\d{2}/.test(reminded[0]), 'remind me to call the vet tomorrow: a reminder, due tomorrow', reminded.join(' | '));
    await page.waitForFunction(() => [...document.querySelectorAll('[data-block="scratch"] .fact')].some((f) => f.innerText.includes('vet')), null, { timeout: 10000 });
    const vet = (await facts()).find((f) => f.includes('vet')) || '';
    check(/due \d{4}-\d{2}-\d{2}, tomorrow/.test(vet), 'the memory panel shows the reminder due tomorrow', vet);
    await page.screenshot({ path: `${out}/told-03-reminder.png`, fullPage: true });
    check(errors.length === 0, 'no console errors', errors.join(' | '));
  } catch (e) {
    check(false, 'the memory-command checks ran to the end', String(e));
    await page.screenshot({ path: `${out}/told-failed.png`, fullPage: true }).catch(() => {});
  }
  await browser.close();
  finish('told');
})();
