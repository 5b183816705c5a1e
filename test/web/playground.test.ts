// The playground in a real browser (Debian's chromium via playwright-core): a repair with its
// highlighted positions, the keyboard-only flow, the demo limit message, and a phone-sized screen.
// The server trusts loopback as a proxy and each browser context sends its own X-Forwarded-For,
// so every part gets its own demo window (DEMO_LIMIT_PER_HOUR=2).
import t, { type Test } from 'tap';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSkip, launchBrowser, screenshotPath, SCROLLS_SIDEWAYS, startWebServer } from './helpers.js';

let url = '';
let browser: Browser;
let nextIp = 1;

if (browserSkip === false) {
  url = (await startWebServer(t, { DEMO_LIMIT_PER_HOUR: '2', TRUST_PROXY: '127.0.0.1,::1' })).url;
  browser = await launchBrowser(t);
}

interface Opened { context: BrowserContext; page: Page; errors: string[] }

async function openPlayground(t: Test, viewport = { width: 1280, height: 900 }): Promise<Opened> {
  const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'x-forwarded-for': `10.7.0.${nextIp++}` } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${url}/`);
  return { context, page, errors };
}

interface Detail { type: string; position?: number }

t.test('a repair shows the JSON, confidence, every repair, and marks the positions in the input', { skip: browserSkip }, async (t) => {
  const { context, page, errors } = await openPlayground(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.selectOption('#example', 'fenced');
  const input = await page.inputValue('#input');
  t.match(input, /```json/);
  const [response] = await Promise.all([page.waitForResponse('**/v1/demo/repair'), page.click('#repair')]);
  const answer = (await response.json()) as { repaired: unknown; metadata: { confidence: string; repairs_applied: Detail[] } };
  await page.waitForSelector('#result-body:not([hidden])');

  t.same(JSON.parse(await page.textContent('#output') ?? ''), answer.repaired, 'the repaired JSON, pretty-printed');
  t.match(await page.textContent('#result-status'), `${answer.metadata.confidence} confidence`);
  const listed = await page.$$eval('#repairs li', (items) => items.map((li) => li.textContent ?? ''));
  t.equal(listed.length, answer.metadata.repairs_applied.length, 'one line per repair');
  answer.metadata.repairs_applied.forEach((d, i) => {
    t.match(listed[i], d.type);
    t.match(listed[i], `position ${d.position}`);
  });

  const marks = await page.$$eval('#marked-input mark', (nodes) => nodes.map((m) => ({
    position: Number(m.getAttribute('data-position')), text: m.textContent ?? '', label: m.getAttribute('aria-label') ?? '',
  })));
  const positions = [...new Set(answer.metadata.repairs_applied.map((d) => d.position!))].sort((a, b) => a - b);
  t.same(marks.map((m) => m.position), positions, 'a mark at every reported position');
  for (const mark of marks) {
    t.equal(mark.text, input.slice(mark.position, mark.position + mark.text.length), `mark ${mark.position} covers the input there`);
    t.equal(mark.text.length, mark.position < input.length ? 1 : 0);
  }
  t.equal(await page.textContent('#marked-input'), input, 'the marked view shows the input unchanged');
  t.match(marks.find((m) => m.position === 0)?.label, /stripped_leading_text/);

  t.match(await page.textContent('#quota'), /^1 of 2 demo repairs left this hour/);
  t.match(await page.textContent('#demo-message'), /Sign up for a free API key/);
  await page.screenshot({ path: screenshotPath(t, 'playground'), fullPage: true });
  await page.click('#copy-output');
  t.same(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), answer.repaired, 'Copy puts the JSON on the clipboard');
  t.same(errors, [], 'no script errors on the page');
});

t.test('the keyboard alone: reach the input, repair with Ctrl+Enter, jump from a repair to its mark', { skip: browserSkip }, async (t) => {
  const { page, errors } = await openPlayground(t);
  const focused = (): Promise<string> => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName || '');
  await page.keyboard.press('Tab');
  t.equal(await page.evaluate(() => document.activeElement?.className), 'skip-link', 'the first Tab reaches the skip link');
  t.equal(await page.evaluate(() => getComputedStyle(document.activeElement!).top), '8px', 'and shows it');
  await page.keyboard.press('Enter');
  t.equal(await focused(), 'main', 'the skip link moves focus to the playground');

  const order: string[] = [];
  for (let i = 0; i < 10 && !order.includes('input'); i++) {
    await page.keyboard.press('Tab');
    order.push(await focused());
  }
  t.same(order.slice(-2), ['example', 'input'], 'the example picker, then the input, in reading order');
  const ring = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement!);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  t.ok(ring.style !== 'none' && ring.width >= 2, 'a visible focus ring', ring);

  await page.keyboard.type("{name: 'Ada', tags: [1, 2,]");
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('#result-body:not([hidden])');
  t.same(JSON.parse(await page.textContent('#output') ?? ''), { name: 'Ada', tags: [1, 2] });
  t.equal(await page.getAttribute('#result-status', 'role'), 'status', 'the result summary is a live region');

  const link = page.locator('#repairs a.position').first();
  const target = await link.getAttribute('data-position');
  await link.focus();
  await page.keyboard.press('Enter');
  t.equal(await focused(), `mark-${target}`, 'Enter on a repair moves focus to its mark in the input');
  t.same(errors, [], 'no script errors on the page');
});

t.test('past the demo limit the page says so, with the way out', { skip: browserSkip }, async (t) => {
  const { page, errors } = await openPlayground(t);
  await page.selectOption('#example', 'python');
  for (let i = 0; i < 2; i++) {
    await Promise.all([page.waitForResponse('**/v1/demo/repair'), page.click('#repair')]);
    await page.waitForSelector('#repair:not([disabled])');
  }
  t.match(await page.textContent('#quota'), /^0 of 2 demo repairs left/);
  t.equal(await page.isHidden('#limit-message'), true, 'no message while within the limit');
  await Promise.all([page.waitForResponse('**/v1/demo/repair'), page.click('#repair')]);
  await page.waitForSelector('#limit-message:not([hidden])');
  const message = await page.textContent('#limit-message');
  t.match(message, /Demo limit reached/);
  t.match(message, /2 requests per hour per IP address/);
  t.match(message, /Sign up for a free API key/);
  t.equal(await page.getAttribute('#limit-message', 'role'), 'alert', 'announced at once');
  t.equal(await page.getAttribute('#limit-message a', 'href'), '/console');
  t.match(await page.textContent('#result-status'), /demo limit/);
  t.equal(await page.isHidden('#result-body'), true, 'no stale result under the message');
  t.same(errors, [], 'no script errors on the page');
});

t.test('a phone-sized screen: one column, nothing scrolls sideways', { skip: browserSkip }, async (t) => {
  const { page, errors } = await openPlayground(t, { width: 390, height: 844 });
  await page.selectOption('#example', 'schema');
  await Promise.all([page.waitForResponse('**/v1/demo/repair'), page.click('#repair')]);
  await page.waitForSelector('#result-body:not([hidden])');
  t.equal(await page.evaluate(SCROLLS_SIDEWAYS), false, 'the playground with a result fits 390 px');
  const form = await page.locator('#repair-form').boundingBox();
  const result = await page.locator('#result').boundingBox();
  t.ok(form !== null && result !== null && result.y >= form.y + form.height, 'the result sits below the form');
  t.ok(form!.width <= 390, 'panels fit the screen');
  await page.goto(`${url}/console`);
  await page.waitForSelector('#signed-out:not([hidden])');
  t.equal(await page.evaluate(SCROLLS_SIDEWAYS), false, 'the console fits 390 px too');
  t.same(errors, [], 'no script errors on the page');
});
