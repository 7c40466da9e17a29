// flows-results.mjs: a combat of every system fought in the console with
// entered dice, on a campaign of its own (made through the API), and the
// result the console draws checked against the JSON the API holds: the
// banner's winner (data-winner) and every unit's fate (data-fate), on the
// result, on the report page, and on a phone as a player.
//
// The expected winner and fates are worked out here from the API's JSON,
// independently of the console's code, by the readings of docs/console.md
// ("Results for people"): SCRUD, the side with fewer defeats suffered;
// EDNA, none; SCS, the attacker when the defender's hex is vacated, else
// the side that lost fewer steps; Matrix and Civilization, the battle's
// winner.

import { api } from './fixtures.mjs';
import { checkShown } from './flows-odds.mjs';
import { BASE, PHONE, tid, tidOf, check, shot, step, openPage, openConsole, signIn, noProblems, checkNoSidewaysScroll } from './harness.mjs';

const CAMPAIGN_NAME = 'Every system';

// The units, made to give every kind of fate with the dice below.
const UNITS = [
  { name: 'Rangers', side: 'russian', scrud: { quality: 1 }, edna: {}, scs: { attack: 4, defense: 4 }, matrix: { quality: 1 }, civ: { class: 'infantry', era: 2, bonus: 1 } },
  { name: 'Guards', side: 'russian', scrud: {}, edna: {}, scs: { attack: 3, defense: 3 }, matrix: { quality: 0 }, civ: { class: 'cavalry', era: 2 } },
  { name: 'Landwehr', side: 'german', scrud: { quality: -2 }, edna: { start: 2 } },
  { name: 'Jaeger', side: 'german', edna: {} },
  { name: 'Pioneers', side: 'german', scs: { attack: 2, defense: 2, reduced: { attack: 1, defense: 1 }, steps: 3 } },
  { name: 'Hussars', side: 'german', matrix: { quality: 0 } },
  { name: 'Uhlans', side: 'german', civ: { class: 'cavalry', era: 1 } },
  { name: 'Krupp', side: 'german', civ: { class: 'artillery', era: 1 } },
];

// --- What the API's JSON says, read independently of the console.

const EXPECT = {
  scrud(r) {
    const [a, b] = r.sides;
    const winner = a.defeats_suffered === b.defeats_suffered ? '' : a.defeats_suffered < b.defeats_suffered ? a.name : b.name;
    const fates = {};
    for (const s of r.sides) {
      for (const u of s.units) fates[u.unit] = u.reserve ? 'reserve' : u.eliminated ? 'eliminated' : u.defeats ? 'defeated' : 'not-defeated';
    }
    return { winner, fates };
  },
  edna(r) {
    return { winner: '', fates: Object.fromEntries(r.tests.map((t) => [t.unit, t.ineffective ? 'ineffective' : t.passed ? 'passed' : 'failed'])) };
  },
  scs(r) {
    const att = r.attackers[0].side;
    const def = r.defenders[0].side;
    const lost = (us) => us.reduce((n, u) => n + u.lost, 0);
    let winner = '';
    if (r.hex_vacated && r.attackers.some((u) => !u.eliminated)) winner = att;
    else if (lost(r.attackers) !== lost(r.defenders)) winner = lost(r.attackers) < lost(r.defenders) ? att : def;
    const fates = {};
    for (const u of [...r.attackers, ...r.defenders]) fates[u.unit] = u.eliminated ? 'eliminated' : u.lost ? 'lost-steps' : 'unharmed';
    return { winner, fates };
  },
  matrix(b) {
    const setup = b.setup || b.input.setup;
    const winner = b.result.winner ? setup[b.result.winner].name : '';
    return { winner, fates: Object.fromEntries(Object.entries(b.result.unit_results).map(([n, res]) => [n, res || 'held'])) };
  },
  civ(b) {
    const setup = b.setup || b.input.setup;
    const fates = {};
    for (const army of ['attacker', 'defender']) {
      for (const u of setup[army].units) fates[u.name] = b.survivors[army].includes(u.name) ? 'survived' : 'destroyed';
    }
    return { winner: b.over && b.winner ? setup[b.winner].name : '', fates };
  },
};

const WORST = new Set(['eliminated', 'routed', 'destroyed', 'ineffective']);

/**
 * The rendered result inside `scope` equals `want`: the banner's winner,
 * the fallen listed in the banner, and each unit's fate, no unit missing
 * and none extra.
 */
async function checkRendered(scope, want, what) {
  const banner = scope.locator(tid('result-banner')).first();
  await banner.waitFor();
  const winner = await banner.getAttribute('data-winner');
  check(winner === want.winner, `${what}: the banner's winner is "${winner}", the API says "${want.winner}"`);
  if (want.winner) check((await banner.innerText()).includes(want.winner), `${what}: the banner does not name ${want.winner}`);
  const fallen = (await banner.locator(tid('banner-fallen')).evaluateAll((els) => els.map((e) => e.dataset.unitName))).sort();
  const wantFallen = Object.entries(want.fates).filter(([, f]) => WORST.has(f)).map(([n]) => n).sort();
  check(JSON.stringify(fallen) === JSON.stringify(wantFallen), `${what}: the banner lists ${JSON.stringify(fallen)} as lost, the API ${JSON.stringify(wantFallen)}`);
  const shown = await scope.locator(tid('unit-outcome')).evaluateAll((els) => els.map((e) => [e.dataset.unitName, e.dataset.fate]));
  const got = Object.fromEntries(shown);
  check(shown.length === Object.keys(want.fates).length, `${what}: ${shown.length} units shown, the API has ${Object.keys(want.fates).length}`);
  for (const [name, fate] of Object.entries(want.fates)) {
    check(got[name] === fate, `${what}: ${name}'s fate shown is "${got[name]}", the API's JSON says "${fate}"`);
  }
  // A unit eliminated must stand out: not greyed out, marked.
  for (const [name, fate] of Object.entries(want.fates)) {
    if (!WORST.has(fate)) continue;
    const cls = await scope.locator(tidOf('unit-outcome', 'data-unit-name', name)).first().getAttribute('class');
    check(/sev-worst/.test(cls || ''), `${what}: ${name} (${fate}) is not marked as the worst fate`);
  }
}

async function makeCampaign() {
  const c = await api(BASE, 'POST', '/v1/campaigns', null, { name: CAMPAIGN_NAME, sides: [{ name: 'russian' }, { name: 'german' }] });
  for (const u of UNITS) await api(BASE, 'POST', `/v1/campaigns/${c.id}/units`, c.umpire_token, u);
  return { id: c.id, umpire: c.umpire_token, player: c.sides.find((s) => s.name === 'german').player_token };
}

async function combatForm(page, system) {
  await page.locator(tid('nav-combat')).click();
  await page.locator(tid('combat-system')).selectOption(system);
  await page.locator(tid('dice-source')).selectOption('entered');
}

/** The combat just resolved: its id from the result's report link. */
async function resultId(page) {
  const href = await page.locator(`${tid('combat-result')} ${tid('open-report')}`).getAttribute('href');
  return decodeURIComponent(href.split('/').pop());
}

export async function resultsFlow(browser) {
  const F = 'results';
  const { context, page, problems } = await openPage(browser);
  const combats = {}; // system -> combat id (the record, for battles)
  let c;
  const path = (p) => `/v1/campaigns/${c.id}${p}`;
  try {
    await step(F, 'a campaign of every system (API), the umpire signs in', page, async () => {
      c = await makeCampaign();
      await openConsole(page);
      await signIn(page, c.umpire, 'umpire', CAMPAIGN_NAME);
    });

    await step(F, 'EDNA: tests with entered dice, checked against the API', page, async () => {
      await combatForm(page, 'edna');
      const dice = { Rangers: [6, 6], Jaeger: [1, 2], Landwehr: [6, 5] };
      for (const [unit, ds] of Object.entries(dice)) {
        await page.locator(tidOf('edna-unit', 'data-unit-name', unit)).check();
        for (const [i, d] of ds.entries()) await page.locator(`${tidOf('die-input', 'data-unit-name', unit)}[data-die-index="${i}"]`).fill(String(d));
      }
      await page.locator(tid('combat-submit')).click();
      const result = page.locator(tid('combat-result'));
      await result.locator(tid('result-banner')).waitFor();
      combats.edna = await resultId(page);
      const r = await api(BASE, 'GET', path(`/combats/${combats.edna}`), c.umpire);
      await checkRendered(result, EXPECT.edna(r), 'EDNA result');
      check(Object.values(EXPECT.edna(r).fates).includes('ineffective'), 'the EDNA dice no longer make a unit ineffective');
      await shot(page, '31-edna-result.png');
    });

    await step(F, 'SCRUD: a reserve, an elimination, checked against the API', page, async () => {
      await combatForm(page, 'scrud');
      for (const [unit, die] of [['Rangers', 5], ['Guards', 1], ['Landwehr', 1]]) {
        await page.locator(tidOf('scrud-unit', 'data-unit-name', unit)).check();
        await page.locator(tidOf('die-input', 'data-unit-name', unit)).fill(String(die));
      }
      await page.locator(tidOf('scrud-reserve', 'data-unit-name', 'Guards')).check();
      await page.locator(tid('combat-submit')).click();
      const result = page.locator(tid('combat-result'));
      await result.locator(tid('result-banner')).waitFor();
      combats.scrud = await resultId(page);
      const r = await api(BASE, 'GET', path(`/combats/${combats.scrud}`), c.umpire);
      const want = EXPECT.scrud(r);
      await checkRendered(result, want, 'SCRUD result');
      check(want.fates.Landwehr === 'eliminated' && want.winner === 'russian', `the SCRUD dice no longer give what this test needs: ${JSON.stringify(want)}`);
      // Every term of a score: Rangers' die, its quality, the reserve's +1.
      const rangers = await result.locator(tidOf('unit-outcome', 'data-unit-name', 'Rangers')).innerText();
      check(/quality/.test(rangers) && /reserve/.test(rangers), `Rangers' score hides its terms: "${rangers}"`);
      await shot(page, '30-scrud-result.png');
    });

    await step(F, 'SCS: a retreat converted into a step, checked against the API', page, async () => {
      await combatForm(page, 'scs');
      await page.locator(tid('scs-attackers-side')).selectOption({ label: 'russian' });
      await page.locator(tid('scs-defenders-side')).selectOption({ label: 'german' });
      for (const unit of ['Rangers', 'Guards']) await page.locator(`${tidOf('scs-unit', 'data-role', 'attackers')}[data-unit-name="${unit}"]`).check();
      await page.locator(`${tidOf('scs-unit', 'data-role', 'defenders')}[data-unit-name="Pioneers"]`).check();
      await page.locator(tid('scs-table')).selectOption('example-2d6');
      await page.locator('details.options summary').first().click();
      await page.locator(tid('scs-defender_retreat-convert')).fill('1');
      await page.locator(tidOf('die-input', 'data-die', '1')).fill('1');
      await page.locator(tidOf('die-input', 'data-die', '2')).fill('3');
      await page.locator(tid('combat-submit')).click();
      const result = page.locator(tid('combat-result'));
      await result.locator(tid('result-banner')).waitFor();
      combats.scs = await resultId(page);
      const r = await api(BASE, 'GET', path(`/combats/${combats.scs}`), c.umpire);
      await checkRendered(result, EXPECT.scs(r), 'SCS result');
      const pioneers = await result.locator(tidOf('unit-outcome', 'data-unit-name', 'Pioneers')).innerText();
      if (r.defender.converted) check(/in place of retreating/.test(pioneers), `the conversion is not said: "${pioneers}"`);
      const banner = await result.locator(tid('result-banner')).innerText();
      check(!/exploit/i.test(banner), `the banner speaks of exploit-capable units, and none took part: "${banner}"`);
      await shot(page, '32-scs-result.png');
    });

    await step(F, 'Matrix: a battle created, rolled and accepted, checked against the API', page, async () => {
      await combatForm(page, 'matrix');
      for (const [army, unit] of [['attacker', 'Rangers'], ['attacker', 'Guards'], ['defender', 'Hussars']]) {
        await page.locator(`${tidOf('matrix-unit', 'data-army', army)}[data-unit-name="${unit}"]`).check();
      }
      await shot(page, '33-matrix-form.png');
      await page.locator(tid('combat-submit')).click();
      await page.locator(tid('battle-roll')).first().waitFor();
      await page.locator(tidOf('die-input', 'data-unit-name', 'Rangers')).fill('6');
      await page.locator(tidOf('die-input', 'data-unit-name', 'Hussars')).fill('1');
      await page.locator(tid('battle-roll')).first().click();
      await page.locator(tid('battle-accept')).click();
      const result = page.locator(tid('battle-result'));
      await result.waitFor();
      const id = decodeURIComponent(page.url().split('/').pop());
      const b = await api(BASE, 'GET', path(`/battles/${id}`), c.umpire);
      await checkRendered(result, EXPECT.matrix(b), 'Matrix battle');
      // The banner comes before the armies.
      const order = await page.evaluate(() => {
        const banner = document.querySelector('[data-testid="result-banner"]');
        const state = document.querySelector('[data-testid="battle-state"]');
        return Boolean(banner.compareDocumentPosition(state) & Node.DOCUMENT_POSITION_FOLLOWING);
      });
      check(order, 'the result is drawn after the armies');
      combats.matrix = b.combat_id;
      await shot(page, '33-matrix-battle.png');
    });

    await step(F, 'Civilization: a battle fought with entered dice, checked against the API', page, async () => {
      await combatForm(page, 'civ');
      await page.locator(tidOf('civ-unit', 'data-unit-name', 'Krupp')).waitFor();
      await shot(page, '34-civ-form.png');
      await page.locator(tid('combat-submit')).click();
      await page.locator(tid('battle-phase-submit')).waitFor();
      // The next phase's chances (flows-odds.mjs checks the others): as the API answers the same body.
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/v1/campaigns/${c.id}/odds/civ`));
      await page.locator(tid('civ-odds-ask')).click();
      const oddsBody = (await sent).postDataJSON();
      await page.locator(tid('civ-odds')).waitFor();
      await checkShown(page.locator(tid('civ-odds')), await api(BASE, 'POST', path('/odds/civ'), c.umpire, oddsBody), 'Civilization phase chances');
      const dice = { Rangers: 6, Guards: 6, Uhlans: 1, Krupp: 1 };
      for (const [unit, d] of Object.entries(dice)) await page.locator(tidOf('die-input', 'data-unit-name', unit)).fill(String(d));
      await page.locator(tid('battle-phase-submit')).click();
      const result = page.locator(tid('battle-result'));
      await result.waitFor();
      const id = decodeURIComponent(page.url().split('/').pop());
      const b = await api(BASE, 'GET', path(`/battles/${id}`), c.umpire);
      await checkRendered(result, EXPECT.civ(b), 'Civilization battle');
      // Damage wasted is on the row of the army that dealt it.
      const phase = page.locator(tidOf('battle-phase', 'data-phase', '0'));
      for (const [army, other] of [['attacker', 'defender'], ['defender', 'attacker']]) {
        const text = await phase.locator(`.phase-army[data-army="${army}"]`).innerText();
        const wasted = b.phases[0][other].damage_lost;
        check(text.includes(`damage wasted: ${wasted}`), `the ${army}'s row does not show its wasted damage ${wasted}: "${text}"`);
      }
      combats.civ = b.combat_id;
      await shot(page, '34-civ-battle.png');
    });

    await step(F, 'every report page, against the API', page, async () => {
      for (const [system, id] of Object.entries(combats)) {
        await page.goto(new URL(`/#/reports/${encodeURIComponent(id)}`, BASE).href);
        const view = page.locator(tid('report-rendered'));
        await view.locator(tid('result-banner')).waitFor();
        const r = await api(BASE, 'GET', path(`/combats/${id}`), c.umpire);
        await checkRendered(view, EXPECT[system](r), `${system} report page`);
        const text = await view.innerText();
        check(!/\*\*|`|\d{4}-\d\d-\d\dT\d\d:/.test(text), `the ${system} report shows Markdown or a raw timestamp`);
      }
      await shot(page, '35-report-page.png');
    });

    await step(F, 'the campaign report: every unit lost, as the API says', page, async () => {
      await page.goto(new URL('/#/reports/campaign', BASE).href);
      const view = page.locator(tid('report-rendered'));
      const banner = view.locator(tid('result-banner'));
      await banner.waitFor();
      const r = await api(BASE, 'GET', path('/report'), c.umpire);
      const lost = r.units.filter((u) => u.eliminated).map((u) => u.name).sort();
      const shown = (await banner.locator(tid('banner-fallen')).evaluateAll((els) => els.map((e) => e.dataset.unitName))).sort();
      check(JSON.stringify(shown) === JSON.stringify(lost), `the campaign report lists ${JSON.stringify(shown)} as lost, the API ${JSON.stringify(lost)}`);
      for (const u of r.units) {
        const fate = await view.locator(tidOf('unit-outcome', 'data-unit-name', u.name)).getAttribute('data-fate');
        check(fate === (u.eliminated ? 'eliminated' : 'survived'), `${u.name} is shown ${fate}`);
      }
      await shot(page, '37-campaign-report.png');
    });

    await step(F, 'no console errors or CSP violations', page, async () => noProblems(problems));

    await step(F, 'the reports on a phone, as a player', null, async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await openConsole(phone.page);
        await signIn(phone.page, c.player, 'player', CAMPAIGN_NAME);
        const header = await phone.page.locator('header.topbar').boundingBox();
        check(header.height <= 130, `the header takes ${Math.round(header.height)} of ${PHONE.height} px`);
        for (const [system, id] of Object.entries(combats)) {
          await phone.page.goto(new URL(`/#/reports/${encodeURIComponent(id)}`, BASE).href);
          const view = phone.page.locator(tid('report-rendered'));
          await view.locator(tid('result-banner')).waitFor();
          const r = await api(BASE, 'GET', path(`/combats/${id}`), c.umpire);
          await checkRendered(view, EXPECT[system](r), `${system} report on a phone`);
          await checkNoSidewaysScroll(phone.page, `the ${system} report`);
          await shot(phone.page, `36-${system}-report-390.png`);
        }
        noProblems(phone.problems);
      } finally {
        await phone.context.close();
      }
    });
  } finally {
    await context.close();
  }
}
