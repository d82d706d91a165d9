// Importing a history in the built page, headless Chromium: a zipped ChatGPT export
// dropped on the page (what was read, the estimate, the import, search with the right
// dates, a second import adding nothing), a larger one stopped and resumed, a corrupt
// file refused with nothing changed, and a 5,000-conversation export with the page's
// longest task reported. The reader runs in a worker of its own wasm module: not fetched
// on a visit that reads no file, fetched once when one is, and kept for offline use.
// usage: node import.cjs URL OUTDIR SMALL_ZIP MEDIUM_ZIP LARGE_ZIP
// (the zips are written by `nocturne sample-export`: chatgpt, synthetic 300×4, synthetic 5000×N)
const fs = require('fs');
const { check, launch, finish } = require('./harness.cjs');

const [url, out, smallZip, mediumZip, largeZip] = process.argv.slice(2);

/** Makes `file` a File in the page, ready for `dropPrepared` (the test's own work, kept
 * out of the tasks a measurement counts). */
async function prepare(page, file, name) {
  const b64 = fs.readFileSync(file).toString('base64');
  await page.evaluate(([b64, name]) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bytes], name, { type: name.endsWith('.zip') ? 'application/zip' : 'application/json' }));
    window.__prepared = dt;
  }, [b64, name]);
}

/** Drops the prepared file on the import zone as a user dragging it from their files would. */
async function dropPrepared(page) {
  await page.evaluate(() => {
    const dt = window.__prepared;
    const zone = document.querySelector('[data-testid="history-drop"]');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
}

async function drop(page, file, name) {
  await prepare(page, file, name);
  await dropPrepared(page);
}

/** The largest peak resident memory (VmHWM) of Chromium's renderer processes, in MiB
 * (this script runs one browser; Linux only, "n/a" elsewhere). */
function rendererPeakMiB() {
  let peak = 0;
  try {
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmd.includes('--type=renderer')) continue;
        const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+) kB/);
        if (m) peak = Math.max(peak, Number(m[1]) / 1024);
      } catch (_) { /* the process ended */ }
    }
  } catch (_) { return 'n/a'; }
  return peak ? peak.toFixed(0) : 'n/a';
}

const text = (page, id) => page.locator(`[data-testid="${id}"]`).innerText();
const numbers = (s, re) => { const m = s.match(re); return m ? m.slice(1).map(Number) : null; };

/** The import's report once it has ended — or its error, which the caller's check shows. */
async function reportOf(page) {
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="history-report"], [data-testid="history-error"]');
    return r && !document.querySelector('[data-testid="history-stop"]:not([disabled])');
  }, null, { timeout: 600000 });
  return page.locator('[data-testid="history-report"], [data-testid="history-error"]').first().innerText();
}

(async () => {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  // The import worker's module, as fetched from the server: by the page before its service
  // worker runs, by the service worker after (a response the service worker gave from its
  // cache reached no server).
  const fetched = [];
  const syncFetched = [];
  // The history reader's workers started: one per file read.
  let readers = 0;
  page.on('worker', (w) => { if (/nocturne-import/.test(w.url())) readers += 1; });
  context.on('requestfinished', async (r) => {
    const sync = /nocturne-sync-worker_bg\.wasm$/.test(r.url());
    if (!sync && !/nocturne-import_bg\.wasm$/.test(r.url())) return;
    const resp = await r.response();
    if (r.serviceWorker() || (resp && !resp.fromServiceWorker())) (sync ? syncFetched : fetched).push(r.url());
  });
  try {
    await page.goto(url);
    await page.waitForSelector('[data-testid="history-drop"]', { timeout: 30000 });
    // A first visit that reads no file never fetches the reader's module (the service
    // worker has installed and cached what it precaches by now).
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload();
    await page.waitForSelector('[data-testid="history-drop"]', { timeout: 30000 });
    check(fetched.length === 0, 'a visit that reads no history file does not fetch the import module', fetched.join(' '));

    // 1. The small realistic export, zipped, dropped on the page.
    const readersBefore = readers;
    await drop(page, smallZip, 'chatgpt-export.zip');
    await page.waitForSelector('[data-testid="history-estimate"]', { timeout: 30000 });
    const read = await text(page, 'history-read');
    check(read.includes('a ChatGPT export — 2 conversation(s), 4 message(s) you wrote'), 'a dropped ChatGPT zip is read: conversations and your messages', read);
    check(read.includes('1 hidden, 2 system or tool, 3 on abandoned branches, 1 without text'), 'what was left out is counted by reason', read);
    const estimate = await text(page, 'history-estimate');
    check(/New: 4 message\(s\) of yours and 4 repl\(ies\) over 2 day\(s\); 0 already in memory\. Encoding: 2 model call\(s\)/.test(estimate), 'the estimate says messages, days and model calls before anything runs', estimate);
    check((await page.locator('[data-testid="history-progress"]').count()) === 0, 'nothing ran before Import was clicked');
    await page.check('input[name="history-sleep"] >> nth=2');
    await page.screenshot({ path: `${out}/import-1-estimate.png`, fullPage: true });
    await page.click('[data-testid="history-start"]');
    const report = await reportOf(page);
    check(/Imported 2 conversation\(s\): 4 of your messages and 4 replies stored as turns; \d+ fact\(s\) stored/.test(report), 'the import reports conversations, turns and facts', report);
    check(readers - readersBefore === 1, 'the file is read once: the import takes what was read for its estimate (the job worker is kept warm)', `${readers - readersBefore} reads`);
    await page.fill('[data-testid="memory-search"]', 'Lisbon');
    await page.waitForSelector('[data-testid="search-lineage"]', { timeout: 10000 });
    await page.click('[data-testid="search-lineage"] summary');
    const lineage = await text(page, 'search-lineage');
    check(/Lisbon in March/.test(lineage), 'an imported fact is found by search', lineage);
    const said = (await page.locator('[data-block] .fact', { hasText: 'Lisbon in March' }).first().locator('.when').innerText());
    check(/said (2024-03-04|\d+ (days|months|years) ago)/.test(said) && !said.includes('today'), 'the fact is dated when it was said, not when it was imported', said);
    const from = await page.locator('[data-block] .fact', { hasText: 'Lisbon in March' }).first().locator('.from').innerText();
    check(from.includes('import of "chatgpt-export.zip"'), 'an imported fact says the file it came from, a source other than the user (#68)', from);
    await page.screenshot({ path: `${out}/import-2-done.png`, fullPage: true });

    // 2. The same file again, chosen with the file input that says it takes a chat history
    // (the page has a second, for a memory export): nothing new.
    await page.getByLabel('Chat history to import').setInputFiles(smallZip);
    await page.waitForFunction(() => (document.querySelector('[data-testid="history-estimate"]') || {}).innerText?.includes('all 8 message(s) are already in this memory'), null, { timeout: 30000 });
    check(await page.locator('[data-testid="history-start"]').isDisabled(), 'a second import of the same export has nothing to add');

    // 3. A corrupt file: a clear message, nothing changed.
    const turnsBefore = await page.evaluate(() => document.querySelectorAll('[data-block] .fact').length);
    const cut = `${out}/cut.json`;
    fs.writeFileSync(cut, fs.readFileSync(smallZip).subarray(0, 200));
    await drop(page, cut, 'conversations.zip');
    await page.waitForSelector('[data-testid="history-error"]', { timeout: 30000 });
    const err = await text(page, 'history-error');
    check(err.includes('nothing was imported') && (err.includes('zip') || err.includes('truncated')), 'a cut zip is refused with a clear message', err);
    check((await page.evaluate(() => document.querySelectorAll('[data-block] .fact').length)) === turnsBefore, 'the refused file changed nothing');

    check(fetched.length === 1, 'the import module is fetched once, when the first file is read, and served from the cache after', `${fetched.length} fetches`);
    check(syncFetched.length === 0, 'an import (and a memory that does not sync) never fetches the sync module', syncFetched.join(' '));

    // 4. Stop and resume.
    await drop(page, mediumZip, 'medium.zip');
    await page.waitForFunction(() => (document.querySelector('[data-testid="history-read"]') || {}).innerText?.includes('medium.zip'), null, { timeout: 30000 });
    const total = numbers(await text(page, 'history-read'), /(\d+) message\(s\) you wrote/)[0];
    await page.click('[data-testid="history-start"]');
    await page.waitForFunction(() => {
      const p = document.querySelector('[data-testid="history-progress"]');
      const m = p && p.innerText.match(/(\d+) of (\d+) batches/);
      return m && Number(m[1]) >= 20;
    }, null, { timeout: 120000 });
    await page.click('[data-testid="history-stop"]');
    const stopped = await reportOf(page);
    const first = numbers(stopped, /(\d+) of your messages/);
    check(stopped.startsWith('Stopped') && !/300 conversation/.test(stopped) && first && first[0] > 0 && first[0] < total, 'Stop ends the import with part of it written', `${stopped} (of ${total})`);
    await page.screenshot({ path: `${out}/import-3-stopped.png`, fullPage: true });
    check((await page.locator('[data-testid="history-start"]').innerText()).includes('Resume'), 'the import offers to resume');
    await page.click('[data-testid="history-start"]');
    const resumed = await reportOf(page);
    const second = numbers(resumed, /(\d+) of your messages/);
    const dup = numbers(resumed, /(\d+) duplicate\(s\) skipped/);
    check(resumed.startsWith('Imported') && second && first[0] + second[0] === total, 'the resumed import adds exactly the rest', `${first[0]} + ${second && second[0]} of ${total}; ${resumed}`);
    check(dup && dup[0] >= first[0], 'what the first part imported is skipped as already there', resumed);

    // 5. Scale: a 5,000-conversation export, with the page's longest task measured.
    // The previous import's aftermath (the memory's panels drawn again, the next Sleep's
    // estimate) is left to end first: the figure is the reading's own.
    await page.evaluate(() => {
      window.__longest = 0; window.__tasks = 0; window.__lastEnd = performance.now();
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) {
          window.__tasks += 1; window.__longest = Math.max(window.__longest, e.duration);
          window.__lastEnd = Math.max(window.__lastEnd, e.startTime + e.duration);
        }
      }).observe({ type: 'longtask', buffered: false });
    });
    await prepare(page, largeZip, 'large.zip');
    await page.waitForFunction(() => performance.now() - window.__lastEnd > 2000, null, { timeout: 60000, polling: 250 });
    const settleLongest = await page.evaluate(() => { const l = window.__longest; window.__longest = 0; return l; });
    const started = Date.now();
    await dropPrepared(page);
    await page.waitForFunction(() => (document.querySelector('[data-testid="history-read"]') || {}).innerText?.includes('large.zip'), null, { timeout: 300000 });
    const readMs = Date.now() - started;
    const readLongest = await page.evaluate(() => { const l = window.__longest; window.__longest = 0; return l; });
    const large = await text(page, 'history-read');
    const convs = numbers(large, /(\d+) conversation\(s\)/)[0];
    await page.check('input[name="history-sleep"] >> nth=2');
    await page.click('[data-testid="history-start"]');
    // The page answers while it imports: a click on a tab is handled within a second.
    await page.waitForFunction(() => /[1-9]\d* of \d+ batches/.test((document.querySelector('[data-testid="history-progress"]') || {}).innerText || ''), null, { timeout: 120000 });
    // The tabs by CSS: Playwright's text search walks the whole page on the page's own
    // thread (a profile showed it as the one long task of the import), so it would be
    // measured as the page's.
    const t0 = Date.now();
    await page.click('nav.tabs button:nth-child(5)');
    await page.waitForSelector('[data-testid="prompt-budget"]', { state: 'visible', timeout: 10000 });
    const clickMs = Date.now() - t0;
    await page.click('nav.tabs button:nth-child(1)');
    const bigReport = await reportOf(page);
    const importMs = Date.now() - started - readMs;
    const longest = await page.evaluate(() => window.__longest);
    check(convs === 5000 && /Imported 5000 conversation\(s\)/.test(bigReport), 'a 5,000-conversation export imports in the page', bigReport);
    check(clickMs < 3000, 'the page stays responsive during the import (a tab switch answered)', `${clickMs} ms`);
    const peak = rendererPeakMiB();
    console.log(`import-page: conversations=${convs} readS=${(readMs / 1000).toFixed(1)} importS=${(importMs / 1000).toFixed(1)} readLongestTaskMs=${readLongest.toFixed(0)} importLongestTaskMs=${longest.toFixed(0)} afterImportLongestTaskMs=${settleLongest.toFixed(0)} tabSwitchMs=${clickMs} rendererPeakMiB=${peak}`);
    await page.screenshot({ path: `${out}/import-4-large.png`, fullPage: true });
    // 6. Offline: a reopened page reads a file with the module the service worker kept.
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('[data-testid="history-drop"]', { timeout: 30000 });
    await drop(page, smallZip, 'offline.zip');
    await page.waitForFunction(() => ((document.querySelector('[data-testid="history-read"], [data-testid="history-error"]') || {}).innerText || '').length > 0, null, { timeout: 30000 }).catch(() => undefined);
    const offline = await page.locator('[data-testid="history-read"], [data-testid="history-error"]').first().innerText().catch((e) => String(e));
    check(offline.includes('offline.zip: a ChatGPT export — 2 conversation(s)'), 'offline, a reopened page still reads an export (the module from the service worker\'s cache)', offline);
    await context.setOffline(false);
    check(errors.length === 0, 'no page errors', errors.join(' | '));
  } catch (e) {
    check(false, 'the import checks ran to the end', String(e));
  }
  await browser.close();
  finish('e2e import');
})();
