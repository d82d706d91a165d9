// A Sleep reviewed before it changes anything (`flow::review`), in headless Chromium:
// usage: node review.cjs URL OUTDIR
// Five statements give a plan of five edits; planning writes no version; the plan survives
// a reload; two edits approved and three rejected with a reason are applied; the Versions
// panel shows one Sleep and the log exactly two edits applied and three refused by the user.
const { check, launch, finish, say } = require('./harness.cjs');

const [url, out = 'out'] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(url);
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    for (const text of ['I keep a bearded dragon.', 'I keep a bearded dragon called Saffron.', 'I live in Lisbon.',
      'I moved to Porto, I no longer live in Lisbon.', 'I prefer green tea over coffee.']) {
      await say(page, text);
    }
    const versions = async () => {
      await page.click('text=Versions & diff');
      await page.waitForSelector('[data-testid="timeline"] li');
      return page.locator('[data-testid="timeline"] .label').allInnerTexts();
    };
    const before = await versions();
    await page.click('text=Chat, memory & sleep');

    await page.click('[data-testid="review-sleep"]');
    await page.waitForSelector('[data-testid="review"]', { timeout: 20000 });
    const edits = await page.locator('[data-testid="review-edit"]').allInnerTexts();
    const planText = await page.locator('[data-testid="review"] .hint').innerText();
    const planId = (planText.match(/Plan (p-[0-9a-f]+)/) || [])[1];
    check(edits.length === 5 && !!planId, 'a reviewed Sleep lists every edit of its plan', `${edits.length} edits, ${planId}`);
    check(edits.some((t) => t.includes('"I live in Lisbon." (scratch) → "I live in Lisbon." (scratch, retired)')),
      'each edit shows its facts before and after', edits.join(' | ').slice(0, 400));
    const unchanged = await versions();
    check(JSON.stringify(unchanged) === JSON.stringify(before), 'planning wrote no version', `${before.length} → ${unchanged.length}`);
    await page.click('text=Chat, memory & sleep');
    await page.screenshot({ path: `${out}/review-plan.png`, fullPage: true });

    // The plan survives a reload.
    await page.reload();
    await page.waitForSelector('[data-testid="review"]', { timeout: 30000 });
    const again = await page.locator('[data-testid="review"] .hint').innerText();
    check(again.includes(planId) && (await page.locator('[data-testid="review-edit"]').count()) === 5, 'the plan survives a reload', again.slice(0, 80));

    // Approve two of five: reject all, tick r1 and r2, give a reason.
    await page.click('[data-testid="reject-all"]');
    await page.check('[data-testid="approve-r1"]');
    await page.check('[data-testid="approve-r2"]');
    await page.fill('[data-testid="reject-reason"]', 'not now');
    check((await page.locator('[data-testid="apply-review"]').innerText()).includes('(2)'), 'the Apply button counts the edits chosen');
    await page.click('[data-testid="apply-review"]');
    await page.waitForSelector('[data-testid="review-summary"]', { timeout: 20000 });
    const summary = await page.locator('[data-testid="review-summary"]').innerText();
    check(summary.includes('2 applied, 0 refused by the gates now, 3 not approved by the user'), 'applying reports two applied and three not approved', summary);
    check((await page.locator('[data-testid="review"]').count()) === 0, 'an applied plan leaves the page');
    await page.screenshot({ path: `${out}/review-applied.png`, fullPage: true });

    const after = await versions();
    const added = after.slice(0, after.length - before.length);
    check(added.includes('consolidation:start') && added.includes('pass:dedupe:after') && added.includes('pass:forget:after') && added.length === 11,
      'the Versions panel shows the applied plan as one Sleep, a version before and after each pass', added.join(','));
    await page.screenshot({ path: `${out}/review-versions.png`, fullPage: true });

    await page.click('text=Mutations & lineage');
    await page.waitForSelector('[data-testid="mutations"] tbody tr');
    const rows = await page.locator('[data-testid="mutations"] tbody tr', { hasText: `(review ${planId}/` }).allInnerTexts();
    const applied = rows.filter((r) => /\taccepted \(review/.test(r));
    const byUser = rows.filter((r) => r.includes('refused: not approved by the user: not now'));
    check(rows.length === 5 && applied.length === 2 && byUser.length === 3,
      'the log shows exactly the two approved edits applied and three refused by the user', `${rows.length} rows, ${applied.length} applied, ${byUser.length} by the user`);
    check(applied.some((r) => r.includes('dedupe')) && applied.some((r) => r.includes('supersede')), 'the applied ones are the two approved (dedupe, supersede)', applied.join(' | ').slice(0, 300));
    await page.screenshot({ path: `${out}/review-log.png`, fullPage: true });

    // The memory is what the two edits left: Lisbon superseded, nothing promoted.
    await page.click('text=Chat, memory & sleep');
    const human = await page.locator('[data-block="human"] .fact').count();
    const scratch = await page.locator('[data-block="scratch"] .fact').allInnerTexts();
    check(human === 0 && !scratch.some((t) => t.startsWith('I live in Lisbon.')), 'the memory holds only the approved edits', `${human} in human; scratch: ${scratch.join(' | ').slice(0, 200)}`);
    // A plan belongs to the memory it was made on: a new memory shows none, and keeps
    // showing none after a reload.
    await page.click('[data-testid="review-sleep"]');
    await page.waitForSelector('[data-testid="review"]', { timeout: 20000 });
    await page.click('text=Settings');
    await page.click('text=Start an empty memory');
    await page.waitForFunction(() => (document.querySelector('[data-testid="transfer-status"]')?.innerText || '').includes('Started an empty memory'));
    await page.click('text=Chat, memory & sleep');
    const shownOnNew = await page.locator('[data-testid="review"]').count();
    await page.reload();
    await page.waitForSelector('[data-block="scratch"]', { timeout: 30000 });
    const shownAfterReload = await page.locator('[data-testid="review"]').count();
    check(shownOnNew === 0 && shownAfterReload === 0, "another memory never shows this memory's plan", `${shownOnNew}, ${shownAfterReload} after a reload`);
    check(errors.length === 0, 'no console errors', errors.join(' | ').slice(0, 300));
  } catch (e) {
    check(false, 'the review flow ran to the end', String(e).slice(0, 400));
    await page.screenshot({ path: `${out}/review-failure.png`, fullPage: true }).catch(() => {});
  }
  await browser.close();
  finish('review');
})();
