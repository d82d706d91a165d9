// End-to-end checks of the built app in headless Chromium (playwright-core driving
// Debian's chromium). usage: node app.cjs URL OUTDIR
// Prints one "ok N - …" or "not ok N - …" line per check and saves a screenshot of each
// panel in OUTDIR. Exits non-zero if any check failed.
const { chromium } = require('playwright-core');

const [url, out = 'out'] = process.argv.slice(2);
let n = 0, failed = 0;
function check(cond, what, detail = '') {
  n += 1;
  if (cond) console.log(`ok ${n} - ${what}`);
  else { failed += 1; console.log(`not ok ${n} - ${what}${detail ? ` (${detail})` : ''}`); }
}

(async () => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  const dialogs = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.accept(); });
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    const blocks = await page.locator('[data-block]').evaluateAll((els) => els.map((e) => e.dataset.block));
    check(JSON.stringify(blocks) === JSON.stringify(['persona', 'human', 'episodes', 'scratch']), 'the four memory blocks render', blocks.join(','));
    check(await page.locator('[data-testid="sleep"]').isVisible(), 'the Sleep button is visible');
    check((await page.locator('[data-testid="provider"]').innerText()).includes('offline'), 'the offline provider is labelled as such');
    await page.screenshot({ path: `${out}/01-empty.png`, fullPage: true });

    const say = async (text) => {
      const before = await page.locator('.turn').count();
      await page.fill('#message', text);
      await page.click('.composer button[type=submit]');
      await page.waitForFunction((b) => document.querySelectorAll('.turn').length >= b + 2, before, { timeout: 15000 });
    };
    await say('I live in Lisbon and work best in the morning. I keep a bearded dragon.');
    await say('I keep a bearded dragon called Saffron. I live in Lisbon and work best in the morning.');
    await say('I promised Ana I would review her thesis by Friday.');
    await say('<img src=x onerror=alert(1)> is what I typed.');
    await page.waitForFunction(() => document.querySelectorAll('[data-block="scratch"] .fact').length >= 5, null, { timeout: 10000 });
    const scratch = await page.locator('[data-block="scratch"] .fact').count();
    check(scratch === 6, 'chat turns are encoded into scratch facts', `${scratch} facts`);
    const turns = await page.locator('.turn').allInnerTexts();
    check(turns.some((t) => t.includes('<img src=x onerror=alert(1)>')), 'memory text is escaped: the markup shows as text');
    check(dialogs.length === 0 && (await page.locator('.transcript img').count()) === 0, 'no script or element was injected');
    await page.screenshot({ path: `${out}/02-chat.png`, fullPage: true });

    // Dry run first: it reports and writes nothing.
    await page.check('.sleep input[type=checkbox]');
    await page.click('[data-testid="sleep"]');
    await page.waitForSelector('[data-testid="sleep-summary"]', { timeout: 20000 });
    const dry = await page.locator('[data-testid="sleep-summary"]').innerText();
    check(dry.startsWith('Dry run'), 'a dry run says it wrote nothing', dry);
    check((await page.locator('[data-block="scratch"] .fact').count()) === 6, 'a dry run leaves memory as it was');
    await page.uncheck('.sleep input[type=checkbox]');
    await page.click('[data-testid="sleep"]');
    await page.waitForFunction(() => (document.querySelector('[data-testid="sleep-summary"]')?.innerText || '').startsWith('Sleep complete'), null, { timeout: 20000 });
    const rows = await page.locator('[data-testid="passes"] tbody tr').allInnerTexts();
    check(rows.length === 4 && rows.every((r) => r.includes('done')), 'all four passes report done', rows.join(' | '));
    const summary = await page.locator('[data-testid="sleep-summary"]').innerText();
    check(/active 6 → \d/.test(summary), 'the Sleep summary shows the active counts', summary);
    const human = await page.locator('[data-block="human"] .fact').count();
    check(human >= 2, 'identity and commitments were promoted to human', `${human} in human`);
    await page.screenshot({ path: `${out}/03-sleep.png`, fullPage: true });

    // Versions: a diff of the Sleep, then restore the pre-Sleep version.
    await page.click('text=Versions & diff');
    await page.waitForSelector('[data-testid="timeline"] li');
    const labels = await page.locator('[data-testid="timeline"] .label').allInnerTexts();
    check(labels.includes('consolidation:start') && labels.includes('pass:forget:after'), 'the timeline lists the Sleep versions', labels.join(','));
    const start = page.locator('[data-testid="timeline"] li', { hasText: 'consolidation:start' });
    await start.locator('text=diff from').click();
    await page.locator('[data-testid="timeline"] li').first().locator('text=diff to').click();
    await page.waitForSelector('[data-testid="diff"]');
    const diffText = await page.locator('[data-testid="diff"]').innerText();
    check(/forgotten [1-9]/.test(diffText) && diffText.includes('dedupe'), 'the diff names what was forgotten and by which pass', diffText.slice(0, 200));
    await page.screenshot({ path: `${out}/04-diff.png`, fullPage: true });
    const startSeq = (await start.locator('code').innerText()).replace('v', '');
    await page.click(`[data-testid="restore-${startSeq}"]`);
    await page.waitForSelector('[data-testid="restored"]');
    check(dialogs.length === 1 && dialogs[0].includes('Restore'), 'restore asks for confirmation');
    const restoredLabel = await page.locator('[data-testid="timeline"] .label').first().innerText();
    check(restoredLabel === `restore:v${startSeq}`, 'the restore is itself a version', restoredLabel);
    await page.click('text=Chat, memory & sleep');
    const scratchAfter = await page.locator('[data-block="scratch"] .fact').count();
    check(scratchAfter === 6, 'restore brings the pre-Sleep memory back', `${scratchAfter} in scratch`);
    await page.screenshot({ path: `${out}/05-restored.png`, fullPage: true });

    // Phone width stays usable.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${out}/06-phone.png`, fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, 'no horizontal scrolling at phone width', `${overflow}px`);

    check(errors.length === 0, 'no console errors', errors.join(' | '));
  } catch (e) {
    check(false, 'the end-to-end run completed', String(e));
    await page.screenshot({ path: `${out}/failure.png`, fullPage: true }).catch(() => {});
  }
  await browser.close();
  console.log(`e2e: ${n - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
