// flows-odds.mjs: the odds where decisions are made (docs/odds.md).
//
// odds: a SCRUD combat form's "Chances": the body the page sends to the
//       campaign's odds route is the form's combat (no dice), and every
//       number shown equals the API's answer for that same body (decimal
//       and fraction); then a Matrix battle's reserve: the battle's odds
//       now and if the chosen reserve joins, shown as the API answers
//       them; the EDNA and SCS forms' chances likewise. No console error, no CSP violation.

import { api } from './fixtures.mjs';
import { BASE, tid, tidOf, check, shot, step, openPage, openConsole, signIn, noProblems } from './harness.mjs';

const NAME = 'Odds campaign';

/** The value at a key as odds.js writes it ("sides[0].units[1].eliminated"). */
function at(answer, key) {
  return key
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .reduce((o, k) => (o == null ? undefined : o[k]), answer);
}

/** Every probability shown in `panel` equals the answer's: decimal, and fraction or ± se. */
export async function checkShown(panel, answer, what) {
  const shown = await panel.locator(tid('odds-p')).evaluateAll((els) =>
    els.map((e) => ({ key: e.dataset.key, decimal: e.dataset.decimal, text: e.textContent })),
  );
  check(shown.length > 0, `${what}: no probability shown`);
  for (const s of shown) {
    const p = at(answer, s.key);
    check(p && typeof p.decimal === 'number', `${what}: ${s.key} is not in the API's answer`);
    check(s.decimal === String(p.decimal), `${what}: ${s.key} shows ${s.decimal}, the API ${p.decimal}`);
    const pct = `${(p.decimal * 100).toFixed(1)}%`;
    check(s.text.includes(pct), `${what}: ${s.key} reads "${s.text}", not ${pct}`);
    if (p.fraction !== undefined) check(s.text.includes(`(${p.fraction})`), `${what}: ${s.key} reads "${s.text}", not ${p.fraction}`);
    else check(s.text.includes('±'), `${what}: ${s.key} reads "${s.text}" without its standard error`);
  }
  const exact = await panel.getAttribute('data-exact');
  check(exact === String(answer.exact), `${what}: shown as exact=${exact}, the API ${answer.exact}`);
  const how = await panel.locator(tid('odds-how')).innerText();
  check(answer.exact ? /exact/.test(how) : /estimate/.test(how), `${what}: "${how}" does not say how the odds were made`);
  return shown;
}

export async function oddsFlow(browser) {
  const F = 'odds';
  const { context, page, problems } = await openPage(browser);
  let c;
  const ids = {};
  try {
    await step(F, 'a campaign (API), the umpire signs in', page, async () => {
      c = await api(BASE, 'POST', '/v1/campaigns', null, { name: NAME, sides: [{ name: 'blue' }, { name: 'red' }] });
      for (const [name, side, quality] of [['B1', 'blue', 0], ['B2', 'blue', 1], ['R1', 'red', 1], ['R2', 'red', 0]]) {
        ids[name] = (await api(BASE, 'POST', `/v1/campaigns/${c.id}/units`, c.umpire_token, { name, side, scrud: { quality }, matrix: { quality }, edna: {}, scs: { attack: 3 + quality, defense: 3 } })).id;
      }
      await openConsole(page);
      await signIn(page, c.umpire_token, 'umpire', NAME);
    });

    await step(F, "SCRUD: the form's chances equal the API's answer for the same body", page, async () => {
      await page.locator(tid('nav-combat')).click();
      await page.locator(tid('combat-system')).selectOption('scrud');
      for (const u of ['B1', 'B2', 'R1']) await page.locator(`${tid('scrud-unit')}[data-unit-name="${u}"]`).check();
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/campaigns/${c.id}/odds/scrud`));
      await page.locator(tid('odds-ask')).click();
      const body = (await sent).postDataJSON();
      const side = (n) => c.sides.find((s) => s.name === n).id;
      const want = { sides: [{ side: side('blue'), units: [{ unit: ids.B1 }, { unit: ids.B2 }] }, { side: side('red'), units: [{ unit: ids.R1 }] }] };
      check(JSON.stringify(body) === JSON.stringify(want), `the page asked the odds of ${JSON.stringify(body)}, not the form's ${JSON.stringify(want)}`);
      const panel = page.locator(tid('odds'));
      await panel.waitFor();
      const answer = await api(BASE, 'POST', `/v1/campaigns/${c.id}/odds/scrud`, c.umpire_token, body);
      const shown = await checkShown(panel, answer, 'SCRUD chances');
      const keys = shown.map((s) => s.key);
      for (const k of ['more_defeats.first', 'more_defeats.second', 'more_defeats.equal', 'sides[0].units[0].eliminated', 'sides[0].units[1].eliminated', 'sides[1].units[0].eliminated']) {
        check(keys.includes(k), `SCRUD chances: ${k} is not shown`);
      }
      await shot(page, '70-scrud-odds.png');
    });

    for (const [system, pick] of [
      ['edna', async () => {
        for (const u of ['B1', 'R2']) await page.locator(`${tid('edna-unit')}[data-unit-name="${u}"]`).check();
      }],
      ['scs', async () => {
        await page.locator(tid('scs-attackers-side')).selectOption({ label: 'blue' });
        await page.locator(tid('scs-defenders-side')).selectOption({ label: 'red' });
        for (const u of ['B1', 'B2']) await page.locator(`${tidOf('scs-unit', 'data-role', 'attackers')}[data-unit-name="${u}"]`).check();
        await page.locator(`${tidOf('scs-unit', 'data-role', 'defenders')}[data-unit-name="R1"]`).check();
        await page.locator(tid('scs-table')).selectOption('example-2d6');
      }],
    ]) {
      await step(F, `${system.toUpperCase()}: the form's chances equal the API's answer`, page, async () => {
        await page.locator(tid('combat-system')).selectOption(system);
        await pick();
        const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/campaigns/${c.id}/odds/${system}`));
        await page.locator(tid('odds-ask')).click();
        const body = (await sent).postDataJSON();
        const panel = page.locator(tid('odds'));
        await panel.waitFor();
        const answer = await api(BASE, 'POST', `/v1/campaigns/${c.id}/odds/${system}`, c.umpire_token, body);
        await checkShown(panel, answer, `${system} chances`);
      });
    }

    await step(F, "Matrix: a reserve's odds, now and if it joins, as the API answers", page, async () => {
      const b = await api(BASE, 'POST', `/v1/campaigns/${c.id}/battles`, c.umpire_token, {
        system: 'matrix', turn: 1, kind: 'open',
        attacker: { side: 'blue', units: [ids.B1, ids.B2] },
        defender: { side: 'red', units: [ids.R1] },
        line: [{ attacker: [ids.B1], defender: [ids.R1] }],
        dice: { source: 'entered' },
      });
      await api(BASE, 'POST', `/v1/campaigns/${c.id}/battles/${b.id}/actions`, c.umpire_token, { action: 'roll', combat: 0, expect_actions: 0, dice: { B1: 3, R1: 4 } });
      await page.goto(new URL(`/#/battles/${b.id}`, BASE).href);
      const ask = page.locator(tid('reserve-odds-ask'));
      await ask.waitFor();
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/campaigns/${c.id}/odds/matrix`));
      await ask.click();
      const body = (await sent).postDataJSON();
      const want = { battle: b.id, expect_actions: 1, odds: { reserve: { combat: 0, army: 'attacker', unit: 'B2' } } };
      check(JSON.stringify(body) === JSON.stringify(want), `the page asked the odds of ${JSON.stringify(body)}, not ${JSON.stringify(want)}`);
      const panel = page.locator(tid('reserve-odds'));
      await panel.waitFor();
      const answer = await api(BASE, 'POST', `/v1/campaigns/${c.id}/odds/matrix`, c.umpire_token, body);
      const shown = await checkShown(panel, answer, 'Matrix reserve odds');
      const keys = shown.map((s) => s.key);
      for (const k of ['combats[0].results[1].p', 'battle.winner.attacker', 'battle_if_reserve_joins.winner.attacker']) check(keys.includes(k), `Matrix reserve odds: ${k} is not shown`);
      await shot(page, '71-matrix-reserve-odds.png');
    });
    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));
  } finally {
    await context.close();
  }
}
