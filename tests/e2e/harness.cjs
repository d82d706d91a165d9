// What both end-to-end scripts share: a TAP-like check() and the system Chromium.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

let n = 0, failed = 0;

/** Prints "ok N - what" or "not ok N - what (detail)". */
function check(cond, what, detail = '') {
  n += 1;
  if (cond) console.log(`ok ${n} - ${what}`);
  else { failed += 1; console.log(`not ok ${n} - ${what}${detail ? ` (${detail})` : ''}`); }
}

/** Debian's chromium, headless, quiet on a closed network; never a downloaded browser.
 * CHROMIUM_ARGS adds switches, space-separated (to profile the page's wasm, run from an
 * empty directory with CHROMIUM_ARGS=--js-flags=--prof, then `node --prof-process` on the
 * largest isolate-*.log). */
function launch() {
  const extra = (process.env.CHROMIUM_ARGS || '').split(' ').filter(Boolean);
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run', ...extra],
  });
}

/**
 * Waits until `cond()` (something the test observed: a dialog shown, a console message)
 * holds, polling every 25 ms; throws with `what` after `timeout` ms. Never a fixed sleep.
 */
async function until(cond, what, timeout = 30000) {
  const end = Date.now() + timeout;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Sends `text` from the chat composer and waits for its turn and the reply (two more
 * turns, neither pending).
 */
async function say(page, text, timeout = 15000) {
  const before = await turnsSaid(page);
  await page.fill('#message', text);
  await page.click('.composer button[type=submit]');
  await saidSince(page, before, { timeout });
}

/**
 * How many turns the conversation holds, drawn or not. Not the rows on the page: the
 * transcript draws only the last 60, so counting rows waits forever once it holds more.
 */
async function turnsSaid(page) {
  return page.evaluate(() => Number(document.querySelector('.transcript .end')?.dataset.turns ?? 0));
}

/** Waits until the turn sent after `before` turns is answered, or an `orError` shows. */
async function saidSince(page, before, { timeout = 15000, orError = null } = {}) {
  await page.waitForFunction(([b, error]) => {
    if (error && document.querySelector(error)) return true;
    const said = Number(document.querySelector('.transcript .end')?.dataset.turns ?? 0);
    return !document.querySelector('.turn.pending') && said >= b + 2;
  }, [before, orError], { timeout });
}

/**
 * Whether scripts/setup.sh built the in-page runtime's `variant` ('single' or 'multi')
 * with wasm SIMD here (scripts/build-wllama.sh), so the page must run it, not npm's.
 */
function builtRuntime(variant) {
  const tools = process.env.NOCTURNE_TOOLS || path.join(os.homedir(), '.cache', 'nocturne-tools');
  return fs.existsSync(path.join(tools, 'wllama-built-2.3.7', `${variant}-thread`, 'wllama.wasm'));
}

/** Prints the closing "name: N passed, M failed" line and exits non-zero on a failure. */
function finish(name) {
  console.log(`${name}: ${n - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// Times an action in the page, not the driver's round trips and checks before it acts:
// from the first `event` on `target` to the frame after `drawn(arg)` holds, looked at on
// every change under `within`. `act` does what fires the event.
async function timeInPage(page, { target, event, within, drawn, arg = null }, act, timeout = 60000) {
  await page.evaluate(`(${watchDrawn})(${JSON.stringify({ target, event, within })}, ${drawn}, ${JSON.stringify(arg)})`);
  await act();
  await page.waitForFunction(() => window.__timed.drawn > 0, null, { timeout });
  return Math.round(await page.evaluate(() => window.__timed.drawn - window.__timed.start));
}

// In the page: marks `o.event`'s time, then the frame after `drawn(arg)` first holds.
function watchDrawn(o, drawn, arg) {
  const timed = window.__timed = { start: 0, seen: false, drawn: 0 };
  document.querySelector(o.target).addEventListener(o.event, () => { timed.start = performance.now(); }, { once: true, capture: true });
  const watch = new MutationObserver(() => {
    if (timed.start && !timed.seen && drawn(arg)) {
      timed.seen = true;
      watch.disconnect();
      requestAnimationFrame(() => { timed.drawn = performance.now(); });
    }
  });
  watch.observe(document.querySelector(o.within), { childList: true, subtree: true, characterData: true, attributes: true });
}

module.exports = { check, launch, finish, until, say, turnsSaid, saidSince, builtRuntime, timeInPage };
