// console.test.mjs: the console (served at /) clicked through in a real
// browser: Debian's chromium, driven by playwright-core.  Run by run.sh,
// which starts the server, creates the fixtures (fixtures.mjs) and sets:
//
//   UMPIRE_URL      the server, e.g. http://127.0.0.1:PORT
//   CAMPAIGN_ID     the fixture campaign
//   UMPIRE_TOKEN    its umpire token
//   PLAYER_TOKEN    the token of FIXTURE.player_side
//   BROWSER_DIR     where playwright-core is installed (BROWSER_DIR/node_modules)
//   SCREENSHOTS     where screenshots and the downloaded report go (created;
//                   the *.png and *.html left there by a previous run removed)
//   CHROMIUM        the browser (/usr/bin/chromium unless set)
//   STEP_TIMEOUT_MS one step's limit (30000 unless set)
//
// The flows, each in a fresh browser context (tests/browser/README.md):
// here, the umpire signs in and resolves a SCRUD combat with entered dice,
// checked against the rules (docs/rules/scrud.md) and against the combat
// the API then holds, and a player signs in and finds the combat in the
// unit's history; in flows-setup.mjs, a campaign made on the start page and
// its tokens reissued; in flows-results.mjs, a combat of every system whose
// rendered result is checked against the API's JSON; in flows-tables.mjs,
// the table editor, and the phone's layout; in flows-odds.mjs, the odds
// shown by a SCRUD form and by a Matrix battle's reserve.  Every page must
// be served with a Content-Security-Policy and raise no console error,
// page error or CSP violation.  The elements are found by the data-testid attributes of
// console/TESTIDS.md; the helpers are in harness.mjs.
//
// Prints one line per step; on a failed step saves failure-FLOW-STEP.png and
// prints the page's text.  Exits 0 when every step passed, 1 otherwise.

import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE, api, fightRequest } from './fixtures.mjs';
import {
  BASE, CAMPAIGN, UMPIRE_TOKEN, PLAYER_TOKEN, SHOTS, CHROMIUM, STEP_MS, require,
  tid, tidOf, failures, saved, check, shot, step, openPage, openConsole, noProblems,
} from './harness.mjs';
import { startFlow, tokensFlow } from './flows-setup.mjs';
import { resultsFlow } from './flows-results.mjs';
import { tablesFlow, phoneFlow } from './flows-tables.mjs';
import { liveFlow, shareFlow, fogFlow } from './flows-live.mjs';
import { oddsFlow } from './flows-odds.mjs';

const { chromium } = require('playwright-core');

// --- SCRUD, one unit a side (docs/rules/scrud.md, "How a combat is
// resolved"): score = natural + modifier, held between floor and cap; the
// higher score defeats the lower, equal scores do nothing.  The defeated
// unit takes one defeat penalty when attrition is on.

function scrudScore(unit, die, opts) {
  const cap = opts.cap === 'faces' ? unit.scrud.faces : opts.cap ?? Infinity;
  const floor = opts.floor ?? -Infinity;
  return Math.min(cap, Math.max(floor, die + unit.scrud.modifier));
}

function expectedScrud(units, opts) {
  const [a, b] = FIXTURE.fight.map((f) => {
    const unit = units.find((u) => u.name === f.unit);
    check(unit, `unit ${f.unit} missing from the API's list`);
    return { name: f.unit, die: f.die, score: scrudScore(unit, f.die, opts), unit };
  });
  const winner = a.score > b.score ? a : b.score > a.score ? b : null;
  const loser = winner === a ? b : winner === b ? a : null;
  const penalty = opts.attrition && opts.max_penalty_per_combat > 0 ? 1 : 0;
  return { a, b, winner, loser, loserModifierAfter: loser && loser.unit.scrud.modifier - penalty };
}

async function signIn(page, token, role) {
  await page.locator(tid('token')).fill(token);
  await page.locator(tid('login')).click();
  await page.locator(tid('role')).filter({ hasText: new RegExp(role, 'i') }).waitFor();
  const name = await page.locator(tid('campaign-name')).innerText();
  check(name.includes(FIXTURE.campaign), `campaign-name shows "${name}"`);
}

// --- The umpire: sign in, resolve a SCRUD combat with entered dice.

async function umpireFlow(browser) {
  const F = 'umpire';
  const { context, page, problems } = await openPage(browser);
  try {
    const [fa, fb] = FIXTURE.fight;
    let c, want;
    await step(F, 'read the campaign through the API', null, async () => {
      c = await api(BASE, 'GET', `/v1/campaigns/${CAMPAIGN}`, UMPIRE_TOKEN);
      const units = (await api(BASE, 'GET', `/v1/campaigns/${CAMPAIGN}/units`, UMPIRE_TOKEN)).items;
      want = expectedScrud(units, c.options.scrud);
      const w = want.winner ? `${want.winner.name} wins` : 'a tie';
      console.log(`        expected: ${fa.unit} ${want.a.score} v ${fb.unit} ${want.b.score}, ${w}`);
    });
    await step(F, 'open the console', page, async () => {
      const csp = await openConsole(page);
      console.log(`        Content-Security-Policy: ${csp}`);
      await page.locator(tid('token')).waitFor();
      await shot(page, '01-sign-in.png');
    });
    await step(F, 'sign in as umpire', page, async () => {
      await signIn(page, UMPIRE_TOKEN, 'umpire');
      const shown = await page.locator(tid('next-commitment')).innerText();
      check(shown.includes(c.next_commitment.slice(0, 8)),
        `next-commitment shows "${shown}", the API says ${c.next_commitment}`);
    });
    await step(F, 'choose SCRUD and its units', page, async () => {
      await page.locator(tid('nav-combat')).click();
      await page.locator(tid('combat-system')).selectOption('scrud');
      for (const f of FIXTURE.fight) {
        const box = page.locator(tidOf('scrud-unit', 'data-unit-name', f.unit));
        check((await box.getAttribute('data-side')) === f.side,
          `${f.unit}'s checkbox is not on side ${f.side}`);
        await box.check();
      }
    });
    await step(F, 'enter the dice', page, async () => {
      await page.locator(tid('dice-source')).selectOption('entered');
      for (const f of FIXTURE.fight) {
        await page.locator(tidOf('die-input', 'data-unit-name', f.unit)).fill(String(f.die));
      }
    });
    await step(F, 'resolve the combat', page, async () => {
      await page.locator(tid('combat-submit')).click();
      const result = page.locator(tid('combat-result'));
      await result.filter({ hasText: fa.unit }).waitFor();
      const text = await result.innerText();
      for (const f of FIXTURE.fight) check(text.includes(f.unit), `the result does not name ${f.unit}`);
      for (const u of FIXTURE.units.filter((u) => !FIXTURE.fight.some((f) => f.unit === u.name))) {
        check(!text.includes(u.name), `the result names ${u.name}, which did not fight`);
      }
      // Each unit's outcome: its die, its score, and defeated or not.
      for (const x of [want.a, want.b]) {
        const o = await result.locator(tidOf('unit-outcome', 'data-unit-name', x.name)).innerText();
        for (const n of [x.die, x.score]) {
          check(new RegExp(`\\b${n}\\b`).test(o), `${x.name}'s outcome does not show ${n}: "${o}"`);
        }
        const beaten = /(?<!not )defeated/i.test(o);
        check(beaten === (x === want.loser),
          `${x.name}'s outcome says ${beaten ? '' : 'not '}defeated: "${o}"`);
      }
      await shot(page, '02-combat-result.png');
    });
    await step(F, 'the API holds the combat', null, async () => {
      const list = await api(BASE, 'GET', `/v1/campaigns/${CAMPAIGN}/combats`, UMPIRE_TOKEN);
      const found = list.items.filter((x) => x.system === 'scrud');
      check(found.length === 1, `the campaign has ${found.length} SCRUD combats, not 1`);
      const r = await api(BASE, 'GET', `/v1/campaigns/${CAMPAIGN}/combats/${found[0].id}`, UMPIRE_TOKEN);
      check(r.dice.source === 'entered', `its dice are ${r.dice.source}, not entered`);
      const p = r.pairs[0];
      check(r.pairs.length === 1 && p.first === fa.unit && p.second === fb.unit,
        `its pairs are ${JSON.stringify(r.pairs)}`);
      check(p.first_score === want.a.score && p.second_score === want.b.score,
        `scores ${p.first_score} v ${p.second_score}, expected ${want.a.score} v ${want.b.score}`);
      const winner = want.winner === want.a ? 'first' : want.winner === want.b ? 'second' : 'tie';
      check(p.winner === winner, `winner ${p.winner}, expected ${winner}`);
      if (want.loser) {
        const u = await api(BASE, 'GET',
          `/v1/campaigns/${CAMPAIGN}/units/${encodeURIComponent(want.loser.name)}`, UMPIRE_TOKEN);
        check(u.scrud.modifier === want.loserModifierAfter,
          `${want.loser.name} is at ${u.scrud.modifier}, expected ${want.loserModifierAfter}`);
      }
    });
    await step(F, 'open the report', page, async () => {
      await page.locator(tid('open-report')).click();
      // The result carries a report panel too: wait for the report's own page.
      await page.locator(tid('combat-result')).waitFor({ state: 'hidden' });
      // The report drawn for people, and its Markdown source, folded away.
      const rendered = page.locator(tid('report-rendered')).filter({ hasText: fa.unit }).first();
      await rendered.waitFor();
      check((await rendered.innerText()).includes(fb.unit), `the rendered report does not name ${fb.unit}`);
      await page.locator(tid('show-markdown')).first().click();
      const report = page.locator(tid('report-view')).filter({ hasText: fa.unit }).first();
      await report.waitFor();
      check((await report.innerText()).includes(fb.unit), `the report does not name ${fb.unit}`);
      await shot(page, '03-report.png');
    });
    await step(F, 'copy the report as Markdown', page, async () => {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE).origin });
      await page.locator(tid('copy-markdown')).first().click();
      const copied = await page.waitForFunction(
        (name) => navigator.clipboard.readText().then((t) => (t.includes(name) ? t : null)),
        fa.unit, { timeout: STEP_MS });
      check((await copied.jsonValue()).includes(fb.unit), `the copied Markdown does not name ${fb.unit}`);
    });
    await step(F, 'download the report as HTML', page, async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: STEP_MS }),
        page.locator(tid('download-html')).first().click(),
      ]);
      const name = download.suggestedFilename();
      check(name.endsWith('.html'), `the download is named ${name}`);
      const file = path.join(SHOTS, '03-report.html');
      await download.saveAs(file);
      const html = readFileSync(file, 'utf8');
      check(/<html/i.test(html) && html.includes(fa.unit) && html.includes(fb.unit),
        'the downloaded page is not the HTML report of the combat');
      saved.push(file);
    });
    await step(F, 'sign out', page, async () => {
      await page.locator(tid('logout')).click();
      await page.locator(tid('token')).waitFor();
    });
    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));
  } finally {
    await context.close();
  }
}

// --- A player: sign in, read the unit's history.

// The player flow needs the umpire's combat.  When the umpire flow failed
// before making it, it is made through the API (the umpire flow has failed
// already) so the player's pages are still tested.
async function ensureCombat() {
  const unit = encodeURIComponent(FIXTURE.history_unit);
  const h = await api(BASE, 'GET', `/v1/campaigns/${CAMPAIGN}/units/${unit}/history`, UMPIRE_TOKEN);
  if (h.items.some((e) => e.kind === 'combat')) return;
  console.log('        (no combat from the umpire flow: made through the API for the player flow)');
  await api(BASE, 'POST', `/v1/campaigns/${CAMPAIGN}/combats/scrud`, UMPIRE_TOKEN, fightRequest());
}

async function playerFlow(browser) {
  const F = 'player';
  const { context, page, problems } = await openPage(browser);
  try {
    await step(F, 'the combat exists', null, ensureCombat);
    await step(F, 'open the console', page, async () => {
      await openConsole(page);
    });
    await step(F, 'sign in as player', page, async () => {
      await signIn(page, PLAYER_TOKEN, 'player');
    });
    await step(F, 'list the units', page, async () => {
      await page.locator(tid('nav-units')).click();
      for (const u of FIXTURE.units) {
        await page.locator(tidOf('unit-row', 'data-unit-name', u.name)).waitFor();
      }
      await shot(page, '04-units.png');
    });
    await step(F, "read the unit's history", page, async () => {
      await page.locator(tidOf('unit-row', 'data-unit-name', FIXTURE.history_unit)).click();
      await page.locator(tidOf('unit-detail', 'data-unit-name', FIXTURE.history_unit)).waitFor();
      await page.locator(tid('history-item')).filter({ hasText: /combat/i }).first().waitFor();
      await shot(page, '05-unit-history.png');
    });
    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));
  } finally {
    await context.close();
  }
}

// --- Main.

async function main() {
  mkdirSync(SHOTS, { recursive: true });
  for (const f of readdirSync(SHOTS)) if (/\.(png|html|txt)$/.test(f)) rmSync(path.join(SHOTS, f));

  let browser;
  try {
    await step('browser', 'launch chromium and load /health', null, async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
        // A first launch in a cold container can be slow: its own limit.
        timeout: Math.max(STEP_MS, 90000),
      });
      const { context, page } = await openPage(browser);
      try {
        const res = await page.goto(new URL('/health', BASE).href);
        check(res && res.status() === 200, `/health answered ${res && res.status()}`);
        const body = JSON.parse(await page.locator('body').innerText());
        check(body.status === 'ok', `/health says ${JSON.stringify(body)}`);
      } finally {
        await context.close();
      }
    }, Math.max(2 * STEP_MS, 120000));
    console.log(`        chromium ${browser.version()}, playwright-core ${require('playwright-core/package.json').version}`);
  } catch (e) {
    // Chromium is there but cannot start on this machine (a container
    // without what it needs, say): the console could not be tested, which
    // run.sh reports as a loud skip, never as a pass.
    if (browser) await browser.close();
    if (!browser) process.exit(77);
    failures.push('browser');
    return;
  }
  try {
    // `shared`: what one flow leaves for a later one (the start page's
    // campaign, whose tokens the tokens flow reissues); each makes its own
    // through the API when an earlier one failed.
    const shared = {};
    const flows = [
      ['umpire', umpireFlow],
      ['player', playerFlow],
      ['start', startFlow],
      ['tokens', tokensFlow],
      ['results', resultsFlow],
      ['tables', tablesFlow],
      ['phone', phoneFlow],
      ['live', liveFlow],
      ['share', shareFlow],
      ['fog', fogFlow],
      ['odds', oddsFlow],
    ];
    for (const [name, flow] of flows) {
      try {
        await flow(browser, shared);
      } catch (e) {
        failures.push(name);
      }
    }
  } finally {
    await browser.close();
  }
}

await main();
for (const f of saved) console.log(`  saved: ${f}`);
if (failures.length) {
  console.log(`browser tests: FAILED: ${failures.join(', ')}`);
  process.exit(1);
}
console.log('browser tests: passed');
