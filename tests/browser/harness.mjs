// harness.mjs: what every browser flow shares: the settings run.sh passes
// in the environment, the browser, bounded steps that report themselves
// and leave evidence when they fail, pages that record every console
// error, page error and CSP violation, screenshots, and signing in.
//
// Imported by console.test.mjs (which runs the flows) and by the flow
// modules (flows-*.mjs).  Nothing here runs on import but reading the
// environment.

import { createRequire } from 'node:module';
import path from 'node:path';

const env = (k, d) => {
  const v = process.env[k] ?? d;
  if (v === undefined) {
    console.error(`browser tests: ${k} is not set (run tests/browser/run.sh BUILD_DIR)`);
    process.exit(2);
  }
  return v;
};

export const BASE = env('UMPIRE_URL');
export const CAMPAIGN = env('CAMPAIGN_ID');
export const UMPIRE_TOKEN = env('UMPIRE_TOKEN');
export const PLAYER_TOKEN = env('PLAYER_TOKEN');
export const SHOTS = env('SCREENSHOTS');
export const CHROMIUM = env('CHROMIUM', '/usr/bin/chromium');
export const STEP_MS = Number(env('STEP_TIMEOUT_MS', '30000'));

// playwright-core lives under the build directory, not next to this file.
export const require = createRequire(path.resolve(env('BROWSER_DIR'), 'package.json'));

// The two widths every screenshot of a page is taken at: a laptop and a phone.
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export const tid = (id) => `[data-testid="${id}"]`;
export const tidOf = (id, attr, value) => `[data-testid="${id}"][${attr}="${value}"]`;
export const failures = [];
export const saved = []; // screenshots and downloads, to list at the end
const pageProblems = new WeakMap(); // page -> what it reported (openPage)

export function check(cond, message) {
  if (!cond) throw new Error(message);
}

async function pageText(page) {
  try {
    return (await page.evaluate(() => document.body?.innerText ?? '')).slice(0, 4000);
  } catch (e) {
    return `(no page text: ${e.message})`;
  }
}

/** A full-page screenshot named `name` under SCREENSHOTS. */
export async function shot(page, name) {
  const file = path.join(SHOTS, name);
  await page.screenshot({ path: file, fullPage: true, timeout: STEP_MS });
  saved.push(file);
}

// Runs one step under a hard limit of twice the step timeout (each action
// inside has the step timeout already).  On failure saves a screenshot and
// the page's text, then rethrows so the flow stops there.
export async function step(flow, name, page, fn, limitMs = 2 * STEP_MS) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`step took over ${limitMs} ms`)), limitMs);
  });
  try {
    await Promise.race([fn(), limit]);
    console.log(`  ok    ${flow}: ${name}`);
  } catch (e) {
    // Playwright's call log says what it was waiting for; without colours.
    const msg = String(e?.message ?? e).replace(/\x1b\[[0-9;]*m/g, '');
    console.log(`  FAIL  ${flow}: ${name}: ${msg.split('\n')[0]}`);
    const seen = pageProblems.get(page);
    if (seen?.length) console.log(`        the page reported so far:\n${seen.join('\n').replace(/^/gm, '        | ')}`);
    if (page) {
      const file = path.join(SHOTS, `failure-${flow}-${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      try {
        await page.screenshot({ path: file, fullPage: true, timeout: STEP_MS });
        console.log(`        screenshot: ${file}`);
      } catch (se) {
        console.log(`        (no screenshot: ${se.message.split('\n')[0]})`);
      }
      console.log(`        URL: ${page.url()}`);
      console.log(`        page text:\n${(await pageText(page)).replace(/^/gm, '        | ')}`);
    }
    if (msg.includes('\n')) console.log(msg.replace(/^/gm, '        '));
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

// A fresh context and page that record every console error, page error and
// CSP violation, and whether each document came with a CSP header.
// `viewport`: DESKTOP (the default) or PHONE.
export async function openPage(browser, { viewport = DESKTOP } = {}) {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, isMobile: phone, hasTouch: phone, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.setDefaultNavigationTimeout(STEP_MS);
  const problems = [];
  pageProblems.set(page, problems);
  page.on('console', (m) => {
    const text = m.text();
    if (m.type() === 'error' || /content.security.policy/i.test(text)) {
      problems.push(`console ${m.type()}: ${text}`);
    }
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    // A stream closed as the page moves on is not a failure.
    if (r.failure()?.errorText === 'net::ERR_ABORTED' && /\/events(\?|$)/.test(r.url())) return;
    console.log(`        (request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText})`);
  });
  await page.exposeFunction('__umpireTestCsp', (v) => problems.push(`CSP violation: ${v}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__umpireTestCsp(
        `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  return { context, page, problems };
}

/** Opens / and checks it is the console, with its CSP; answers the CSP. */
export async function openConsole(page) {
  const res = await page.goto(new URL('/', BASE).href, { waitUntil: 'load' });
  check(res, 'no response for /');
  check(res.status() === 200, `GET / answered ${res.status()}`);
  const type = res.headers()['content-type'] ?? '';
  check(type.startsWith('text/html'), `GET / is ${type || 'untyped'}, not text/html`);
  const csp = res.headers()['content-security-policy'];
  check(csp, 'GET / has no Content-Security-Policy header');
  return csp;
}

/** Signs in on the sign-in page; the header must then show `campaign`. */
export async function signIn(page, token, role, campaign) {
  await page.locator(tid('token')).fill(token);
  await page.locator(tid('login')).click();
  await page.locator(tid('role')).filter({ hasText: new RegExp(role, 'i') }).waitFor();
  const name = await page.locator(tid('campaign-name')).innerText();
  check(name.includes(campaign), `campaign-name shows "${name}", not "${campaign}"`);
}

/**
 * Forgets the console messages a refused request leaves ("Failed to load
 * resource: the server responded with a status of 422"): a step that
 * sends something the service must refuse expects exactly those.
 * Answers how many were forgotten.
 */
export function expectRefusals(problems, status) {
  const re = new RegExp(`Failed to load resource: the server responded with a status of ${status}\\b`);
  let n = 0;
  for (let i = problems.length - 1; i >= 0; i -= 1) {
    if (re.test(problems[i])) {
      problems.splice(i, 1);
      n += 1;
    }
  }
  return n;
}

export function noProblems(problems) {
  check(problems.length === 0, `the page reported:\n${problems.join('\n')}`);
}

/** The page's width in CSS pixels against its viewport: nothing may stick out sideways. */
export async function checkNoSidewaysScroll(page, what) {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  check(scroll <= width + 1, `${what}: the page is ${scroll} px wide on a ${width} px screen (it scrolls sideways)`);
}

/** An element lies inside the visible part of the page (the viewport). */
export async function checkInView(page, locator, what) {
  const box = await locator.boundingBox();
  check(box, `${what}: not shown`);
  const vp = page.viewportSize();
  check(box.y >= 0 && box.y + Math.min(box.height, 40) <= vp.height, `${what}: drawn at y=${Math.round(box.y)}, outside the visible ${vp.height} px`);
}
