// The page as `scripts/serve.sh` serves it, loaded the way a newcomer first loads it (a new
// browser profile, nothing cached): no console error, no uncaught error, no Content-Security-
// Policy violation (trunk serve's live-reload script, injected inline, was one on every
// load), cross-origin isolated as serve.sh promises. Prints which in-page runtime it serves.
// usage: node served.cjs URL   (scripts/test.sh starts scripts/serve.sh for it)
const { check, launch, finish } = require('./harness.cjs');

const [url] = process.argv.slice(2);

(async () => {
  const browser = await launch();
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  // A violation the console might not show (reported to the page as an event).
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} (${e.blockedURI || 'inline'})`));
  });
  try {
    const resp = await page.goto(url);
    check(resp && resp.ok(), 'the page answers', resp ? `${resp.status()}` : 'no response');
    await page.waitForSelector('[data-block="scratch"]', { timeout: 60000 });
    await page.evaluate(() => navigator.serviceWorker.ready);
    // Whatever the first load fetches, fetched and run.
    await page.waitForLoadState('networkidle');
    check(errors.length === 0, 'the first load logs no console error', errors.join(' | '));
    check(!requests.some((u) => u.includes('/.well-known/trunk/')), 'no live-reload connection', requests.filter((u) => u.includes('trunk')).join(', '));
    const isolated = await page.evaluate(() => globalThis.crossOriginIsolated);
    check(isolated, 'the page is cross-origin isolated (the in-page model may use threads)');
    const runtime = await page.evaluate(async () => (await import(new URL('inpage/wllama/build.js', document.baseURI).href)).RUNTIME);
    console.log(`served: runtime=${runtime.runtime} variants=${(runtime.variants || []).join(',') || 'none'} (${runtime.detail})`);
  } catch (e) {
    check(false, 'the served page loaded', String(e));
  }
  await browser.close();
  finish('served page');
})();
