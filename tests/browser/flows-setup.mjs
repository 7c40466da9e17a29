// flows-setup.mjs: setting a campaign up without curl.
//
// start:  from the sign-in page to the start page; a campaign with two
//         sides (a third added and removed again) and two options changed;
//         its tokens shown once, checked against the API (GET /v1/token
//         with each), downloaded as a file; signing in as its umpire; a
//         unit added through the form, which must then be blank again.
// tokens: the umpire reissues a side's token and its own: the new ones
//         work at once, the old ones are refused by the API (401), the
//         console goes on with the new umpire token, and the record lists
//         every token issued.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { api } from './fixtures.mjs';
import {
  BASE, SHOTS, PHONE, tid, tidOf, saved, check, shot, step, openPage, openConsole, signIn,
  noProblems, checkInView, checkNoSidewaysScroll,
} from './harness.mjs';

const START = {
  name: 'Start page campaign',
  sides: ['russian', 'german'],
  extra_side: 'austrian',
  edna_start: 6,
  eliminate_below: -3,
};

// GET /v1/token with a token; the expected statuses only.
async function whoIs(token, expect = [200]) {
  return api(BASE, 'GET', '/v1/token', token, undefined, expect);
}

export async function startFlow(browser, shared) {
  const F = 'start';
  const { context, page, problems } = await openPage(browser);
  try {
    let created;
    await step(F, 'open the start page from the sign-in page', page, async () => {
      await openConsole(page);
      await page.locator(tid('start-campaign')).click();
      await page.locator(tid('new-campaign-form')).waitFor();
    });
    await step(F, 'fill in the campaign, its sides and options', page, async () => {
      await page.locator(tid('new-name')).fill(START.name);
      const sides = page.locator(tid('new-side-name'));
      check((await sides.count()) === 2, `the form starts with ${await sides.count()} sides, not 2`);
      for (const [i, name] of START.sides.entries()) await sides.nth(i).fill(name);
      await page.locator(tid('new-side-add')).click();
      await sides.nth(2).fill(START.extra_side);
      await page.locator(tid('new-side-remove')).nth(2).click();
      check((await sides.count()) === 2, 'removing the third side left it there');
      await page.locator(tid('new-edna-start')).fill(String(START.edna_start));
      await page.locator(tid('new-scrud-options')).click();
      await page.locator(tid('new-scrud-eliminate-below')).fill(String(START.eliminate_below));
      await shot(page, '10-start-page.png');
    });
    await step(F, 'create it: the tokens are shown once', page, async () => {
      await page.locator(tid('new-submit')).click();
      const panel = page.locator(tid('new-created'));
      await panel.waitFor();
      const id = await panel.getAttribute('data-campaign-id');
      const umpire = (await page.locator(tid('new-umpire-token')).innerText()).trim();
      check(/^ump_/.test(umpire), `the umpire token shown is "${umpire}"`);
      const players = {};
      for (const name of START.sides) {
        players[name] = (await page.locator(tidOf('new-player-token', 'data-side-name', name)).innerText()).trim();
        check(/^ply_/.test(players[name]), `${name}'s token shown is "${players[name]}"`);
      }
      created = { id, umpire, players };
      await shot(page, '11-start-tokens.png');
    });
    await step(F, 'the API knows the campaign, its options and each token', null, async () => {
      const who = await whoIs(created.umpire);
      check(who.campaign_id === created.id && who.role === 'umpire' && who.campaign_name === START.name, `the umpire token is ${JSON.stringify(who)}`);
      const c = await api(BASE, 'GET', `/v1/campaigns/${created.id}`, created.umpire);
      check(JSON.stringify(c.sides.map((s) => s.name)) === JSON.stringify(START.sides), `its sides are ${JSON.stringify(c.sides)}`);
      check(c.options.edna.start === START.edna_start, `its starting EDNA is ${c.options.edna.start}`);
      check(c.options.scrud.eliminate_below === START.eliminate_below, `its eliminate_below is ${c.options.scrud.eliminate_below}`);
      check(c.options.scrud.cap === 'faces' && c.options.edna.dice === 2, 'an option left alone changed');
      for (const [name, token] of Object.entries(created.players)) {
        const p = await whoIs(token);
        check(p.role === 'player' && p.side_name === name && p.campaign_id === created.id, `${name}'s token is ${JSON.stringify(p)}`);
      }
    });
    await step(F, 'download the tokens as a file', page, async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.locator(tid('tokens-download')).click()]);
      const file = path.join(SHOTS, '11-start-tokens.txt');
      await download.saveAs(file);
      const text = readFileSync(file, 'utf8');
      for (const t of [created.umpire, ...Object.values(created.players)]) check(text.includes(t), 'the file lacks a token');
      saved.push(file);
    });
    await step(F, 'sign in as its umpire', page, async () => {
      await page.locator(tid('new-sign-in')).click();
      await page.locator(tid('role')).filter({ hasText: /umpire/ }).waitFor();
      const name = await page.locator(tid('campaign-name')).innerText();
      check(name.includes(START.name), `the header shows ${name}`);
      await page.locator(tid('unit-name')).waitFor();
    });
    await step(F, 'add a side: its token shown once works', page, async () => {
      await page.locator(tid('side-name')).fill(START.extra_side);
      await page.locator(tid('side-create')).click();
      const token = (await page.locator(`${tid('side-created')} ${tid('player-token')}`).innerText()).trim();
      const who = await whoIs(token);
      check(who.side_name === START.extra_side && who.campaign_id === created.id, `the new side's token is ${JSON.stringify(who)}`);
      await page.locator(tidOf('side-row', 'data-side-name', START.extra_side)).waitFor();
    });
    await step(F, 'add a unit: the form is blank again after it', page, async () => {
      await page.locator(tid('unit-name')).fill('Cossacks');
      await page.locator(tid('unit-side')).selectOption('russian');
      await page.locator(tid('unit-sys-civ')).check();
      await page.locator(tid('unit-civ-bonus')).fill('2');
      await page.locator(tid('unit-create')).click();
      const notice = page.locator(tid('unit-created'));
      await notice.filter({ hasText: 'Cossacks' }).waitFor();
      await checkInView(page, notice, 'the "unit added" notice');
      await page.locator(tidOf('unit-row', 'data-unit-name', 'Cossacks')).waitFor();
      check(!(await page.locator(tid('unit-sys-civ')).isChecked()), 'Civilization is still ticked for the next unit');
      check((await page.locator(tid('unit-civ-bonus')).inputValue()) === '0', 'the next unit would get the last bonus');
      check((await page.locator(tid('unit-name')).inputValue()) === '', 'the name is still filled');
      check((await page.locator(tid('unit-side')).inputValue()) === 'russian', 'the side chosen was not kept');
      const u = await api(BASE, 'GET', `/v1/campaigns/${created.id}/units/Cossacks`, created.umpire);
      check(u.civ && u.civ.bonus === 2 && u.side.name === 'russian', `the API holds ${JSON.stringify(u)}`);
    });
    await step(F, 'the start page on a phone', null, async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await phone.page.goto(new URL('/#/new', BASE).href);
        await phone.page.locator(tid('new-campaign-form')).waitFor();
        await checkNoSidewaysScroll(phone.page, 'the start page');
        await shot(phone.page, '10-start-page-390.png');
        noProblems(phone.problems);
      } finally {
        await phone.context.close();
      }
    });
    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));
    shared.started = created;
  } finally {
    await context.close();
  }
}

/** A campaign for the tokens flow when the start flow made none. */
async function campaignForTokens(shared) {
  if (shared.started) return shared.started;
  console.log('        (no campaign from the start flow: made through the API)');
  const c = await api(BASE, 'POST', '/v1/campaigns', null, { name: START.name, sides: START.sides.map((name) => ({ name })) });
  return { id: c.id, umpire: c.umpire_token, players: Object.fromEntries(c.sides.map((s) => [s.name, s.player_token])) };
}

export async function tokensFlow(browser, shared) {
  const F = 'tokens';
  const { context, page, problems } = await openPage(browser);
  try {
    let c;
    const side = START.sides[1];
    let newPlayer;
    let newUmpire;
    await step(F, 'sign in as the umpire and open Tokens', page, async () => {
      c = await campaignForTokens(shared);
      await openConsole(page);
      await signIn(page, c.umpire, 'umpire', START.name);
      await page.locator(tid('nav-tokens')).click();
      await page.locator(tidOf('token-reissue', 'data-role', 'umpire')).waitFor();
      await page.locator(tid('token-log-row')).first().waitFor();
    });
    await step(F, `reissue ${side}'s token`, page, async () => {
      await page.locator(tidOf('token-reissue', 'data-side-name', side)).click();
      await page.locator(tidOf('token-reissue-confirm', 'data-side-name', side)).click();
      const shown = page.locator(tidOf('reissued-token', 'data-role', 'player'));
      await shown.waitFor();
      newPlayer = (await shown.innerText()).trim();
      check(/^ply_/.test(newPlayer) && newPlayer !== c.players[side], `the new token shown is "${newPlayer}"`);
    });
    await step(F, `the API refuses ${side}'s old token and takes the new one`, null, async () => {
      await whoIs(c.players[side], [401]);
      const who = await whoIs(newPlayer);
      check(who.side_name === side && who.campaign_id === c.id, `the new token is ${JSON.stringify(who)}`);
      const other = START.sides[0];
      const still = await whoIs(c.players[other]);
      check(still.side_name === other, `${other}'s token stopped working too`);
    });
    await step(F, "reissue the umpire's own token", page, async () => {
      await page.locator(tidOf('token-reissue', 'data-role', 'umpire')).click();
      await page.locator(tidOf('token-reissue-confirm', 'data-role', 'umpire')).click();
      const shown = page.locator(tidOf('reissued-token', 'data-role', 'umpire'));
      await shown.waitFor();
      newUmpire = (await shown.innerText()).trim();
      check(/^ump_/.test(newUmpire) && newUmpire !== c.umpire, `the new umpire token shown is "${newUmpire}"`);
      await page.locator(tidOf('token-log-row', 'data-issued-by', 'umpire')).nth(1).waitFor();
      await shot(page, '12-tokens.png');
    });
    await step(F, 'the old umpire token is refused; the console goes on with the new one', page, async () => {
      await whoIs(c.umpire, [401]);
      const who = await whoIs(newUmpire);
      check(who.role === 'umpire' && who.campaign_id === c.id, `the new umpire token is ${JSON.stringify(who)}`);
      await page.locator(tid('nav-units')).click();
      await page.locator(tid('unit-name')).waitFor();
      check(await page.locator(tid('logout')).isVisible(), 'the console signed out');
    });
    await step(F, 'the record lists every token issued', page, async () => {
      await page.locator(tid('nav-tokens')).click();
      const rows = page.locator(tid('token-log-row'));
      await rows.nth(3).waitFor();
      const list = await api(BASE, 'GET', `/v1/campaigns/${c.id}/tokens`, newUmpire);
      check((await rows.count()) === list.items.length, `the page lists ${await rows.count()} tokens, the API ${list.items.length}`);
      const reissued = list.items.filter((t) => t.issued_by === 'umpire');
      check(reissued.length === 2, `the API records ${reissued.length} reissues, not 2`);
      check(!JSON.stringify(list).includes(newUmpire), 'the record holds a secret');
      shared.started = { ...c, umpire: newUmpire, players: { ...c.players, [side]: newPlayer } };
    });
    await step(F, 'the tokens page on a phone', null, async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await openConsole(phone.page);
        await signIn(phone.page, newUmpire, 'umpire', START.name);
        await phone.page.goto(new URL('/#/tokens', BASE).href);
        await phone.page.locator(tid('token-log-row')).first().waitFor();
        await checkNoSidewaysScroll(phone.page, 'the tokens page');
        await shot(phone.page, '12-tokens-390.png');
        noProblems(phone.problems);
      } finally {
        await phone.context.close();
      }
    });
    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));
  } finally {
    await context.close();
  }
}
