// Runs one candidate of page.html in headless Chromium and prints its figures.
// usage: node run.cjs URL wllama|candle THREADS
const { chromium } = require('playwright-core');

const [url, which, threads] = process.argv.slice(2);
(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => window.ready);
  const r = await page.evaluate(([w, t]) => window[w](256, 64, t), [which, Number(threads)]);
  const rate = (n, ms) => (n / (ms / 1000)).toFixed(1);
  console.log(`${which} threads=${threads}: load ${(r.loadMs / 1000).toFixed(2)} s, prompt ${rate(256, r.promptMs)} tok/s, generation ${rate(64, r.genMs)} tok/s`);
  await browser.close();
})();
