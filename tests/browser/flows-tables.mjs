// flows-tables.mjs: the results-table editor, and the console on a phone.
//
// tables: a built-in table drawn as its grid (checked cell by cell
//         against GET /v1/tables); a new table with an invalid cell,
//         whose error (the service's problem, field rows.7[1]) is shown
//         at that cell; corrected, saved and read back through the API;
//         replaced; deleted (the API then answers 404).
// phone:  390×844: a compact header; the units as cards that do not
//         scroll sideways; a battle's "another action landed first"
//         drawn where the umpire is looking; a mistyped kept hash on the
//         Ledger page said as such, not as a broken ledger.

import { api, FIXTURE } from './fixtures.mjs';
import {
  BASE, CAMPAIGN, UMPIRE_TOKEN, PLAYER_TOKEN, PHONE, tid, tidOf, check, shot, step, openPage, openConsole, signIn,
  noProblems, expectRefusals, checkNoSidewaysScroll, checkInView,
} from './harness.mjs';

const TABLE = 'house';
const BAD_CELL = { roll: '7', col: 1, value: 'Dx', fixed: 'D1r1' };

const cellInput = (roll, col) => `${tidOf('table-cell-input', 'data-roll', roll)}[data-col="${col}"]`;

export async function tablesFlow(browser) {
  const F = 'tables';
  const { context, page, problems } = await openPage(browser);
  const tablePath = `/v1/campaigns/${CAMPAIGN}/tables/${TABLE}`;
  try {
    await step(F, 'sign in as the umpire and open Tables', page, async () => {
      await openConsole(page);
      await signIn(page, UMPIRE_TOKEN, 'umpire', FIXTURE.campaign);
      await page.locator(tid('nav-tables')).click();
      await page.locator(tid('table-grid')).first().waitFor();
    });
    await step(F, 'a built-in table is drawn as its grid', page, async () => {
      const builtin = (await api(BASE, 'GET', '/v1/tables', null)).items[0];
      const grid = page.locator(tidOf('table-grid', 'data-table-name', builtin.name));
      const cells = grid.locator(tid('table-cell'));
      const n = Object.keys(builtin.rows).length * builtin.columns.length;
      check((await cells.count()) === n, `the grid of ${builtin.name} has ${await cells.count()} cells, the table ${n}`);
      for (const [roll, row] of Object.entries(builtin.rows)) {
        for (const [col, want] of row.entries()) {
          const got = (await grid.locator(`${tidOf('table-cell', 'data-roll', roll)}[data-col="${col}"]`).innerText()).trim();
          check(got === want, `${builtin.name} row ${roll} column ${builtin.columns[col]} shows "${got}", the API "${want}"`);
        }
      }
    });
    await step(F, "an invalid cell: the service's error is shown at that cell", page, async () => {
      await page.locator(tid('table-new')).click();
      await page.locator(tid('table-name')).fill(TABLE);
      await page.locator(cellInput(BAD_CELL.roll, BAD_CELL.col)).fill(BAD_CELL.value);
      await page.locator(tid('table-save')).click();
      const input = page.locator(cellInput(BAD_CELL.roll, BAD_CELL.col));
      await page.locator(tid('cell-error')).waitFor();
      check((await input.getAttribute('aria-invalid')) === 'true', 'the invalid cell is not marked');
      const inCell = await input.evaluate((el) => Boolean(el.closest('td').querySelector('[data-testid="cell-error"]')));
      check(inCell, 'the error is not shown at the cell');
      check(await input.evaluate((el) => el === document.activeElement), 'the invalid cell does not have the focus');
      const others = await page.locator(`${tid('table-cell-input')}[aria-invalid="true"]`).count();
      check(others === 1, `${others} cells are marked, not 1`);
      check(expectRefusals(problems, 422) >= 1, 'no 422 from the service (was the table checked in the browser only?)');
      await shot(page, '40-table-error.png');
    });
    await step(F, 'corrected, saved, read back through the API', page, async () => {
      await page.locator(cellInput(BAD_CELL.roll, BAD_CELL.col)).fill(BAD_CELL.fixed);
      await page.locator(tid('table-save')).click();
      await page.locator(tidOf('table-card', 'data-table-name', TABLE)).waitFor();
      const t = await api(BASE, 'GET', tablePath, UMPIRE_TOKEN);
      check(t.rows[BAD_CELL.roll][BAD_CELL.col] === BAD_CELL.fixed, `the API holds ${JSON.stringify(t.rows[BAD_CELL.roll])}`);
      check(JSON.stringify(t.columns) === JSON.stringify(['1:2', '1:1', '2:1', '3:1']), `the API's columns are ${JSON.stringify(t.columns)}`);
      check(Object.keys(t.rows).length === 11 && !t.builtin, 'the API holds another table');
      const shown = (await page.locator(`${tidOf('table-grid', 'data-table-name', TABLE)} ${tidOf('table-cell', 'data-roll', BAD_CELL.roll)}[data-col="${BAD_CELL.col}"]`).innerText()).trim();
      check(shown === BAD_CELL.fixed, `the saved grid shows "${shown}"`);
    });
    await step(F, 'replaced', page, async () => {
      await page.locator(`${tidOf('table-card', 'data-table-name', TABLE)} ${tid('table-edit')}`).click();
      await page.locator(cellInput('2', 0)).fill('A2');
      await page.locator(tid('table-save')).click();
      await page.locator(tid('table-editor')).waitFor({ state: 'detached' });
      const t = await api(BASE, 'GET', tablePath, UMPIRE_TOKEN);
      check(t.rows['2'][0] === 'A2' && t.rows[BAD_CELL.roll][BAD_CELL.col] === BAD_CELL.fixed, `the API holds ${JSON.stringify(t.rows)}`);
      await shot(page, '41-tables.png');
    });
    await step(F, 'deleted', page, async () => {
      const card = page.locator(tidOf('table-card', 'data-table-name', TABLE));
      await card.locator(tid('table-delete')).click();
      await card.locator(tid('table-delete-confirm')).click();
      await card.waitFor({ state: 'detached' });
      await api(BASE, 'GET', tablePath, UMPIRE_TOKEN, undefined, [404]);
    });
    await step(F, 'the tables on a phone', null, async () => {
      const phone = await openPage(browser, { viewport: PHONE });
      try {
        await openConsole(phone.page);
        await signIn(phone.page, PLAYER_TOKEN, 'player', FIXTURE.campaign);
        await phone.page.locator(tid('nav-tables')).click();
        await phone.page.locator(tid('table-grid')).first().waitFor();
        await checkNoSidewaysScroll(phone.page, 'the tables page');
        await shot(phone.page, '41-tables-390.png');
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

export async function phoneFlow(browser) {
  const F = 'phone';
  const { context, page, problems } = await openPage(browser, { viewport: PHONE });
  try {
    await step(F, 'a player signs in: a compact header', page, async () => {
      await openConsole(page);
      await shot(page, '50-sign-in-390.png');
      await signIn(page, PLAYER_TOKEN, 'player', FIXTURE.campaign);
      const header = await page.locator('header.topbar').boundingBox();
      check(header.height <= 130, `the header takes ${Math.round(header.height)} of ${PHONE.height} px`);
      await page.locator(tid('dice-toggle')).click();
      await page.locator(tid('next-commitment')).waitFor();
      await page.locator(tid('dice-toggle')).click();
      await page.locator(tid('next-commitment')).waitFor({ state: 'hidden' });
    });
    await step(F, 'the units are cards: nothing scrolls sideways, the status shows', page, async () => {
      await page.locator(tid('nav-units')).click();
      const row = page.locator(tid('unit-row')).first();
      await row.waitFor();
      await checkNoSidewaysScroll(page, 'the units page');
      const status = row.locator('td[data-label="Status"]');
      const box = await status.boundingBox();
      check(box && box.x >= 0 && box.x + box.width <= PHONE.width + 1, `a unit's status is drawn at x=${box && Math.round(box.x)}, off the screen`);
      await shot(page, '50-units-390.png');
    });
    await step(F, "a unit's history reads as words", page, async () => {
      await page.locator(tidOf('unit-row', 'data-unit-name', FIXTURE.history_unit)).click();
      const item = page.locator(tidOf('history-item', 'data-kind', 'combat')).first();
      await item.waitFor();
      const text = await item.innerText();
      check(!/[a-z]+_[a-z]+:|null|"/.test(text), `the history shows raw fields: "${text}"`);
      await checkNoSidewaysScroll(page, "the unit's page");
      await shot(page, '51-unit-history-390.png');
    });
    await step(F, 'a mistyped kept hash is said as such', page, async () => {
      await page.locator(tid('nav-ledger')).click();
      await page.locator('form details summary').click();
      await page.locator(tid('ledger-pos')).fill('1');
      await page.locator(tid('ledger-hash')).fill('0'.repeat(64));
      await page.locator(tid('ledger-verify')).click();
      const verdict = page.locator(tid('ledger-verdict'));
      await verdict.waitFor();
      check((await verdict.getAttribute('data-verified')) === 'false', 'a wrong hash verified');
      check((await verdict.getAttribute('data-kept-only')) === 'true', 'the chain was said to be broken');
      const text = await page.locator(tid('ledger-result')).innerText();
      check(!/does not hold|does NOT hold/i.test(text), `a typo reads as a broken ledger: "${text}"`);
      check(!/entry 1: entry 1/i.test(text), `"Entry 1: entry 1:" again: "${text}"`);
      await shot(page, '52-ledger-390.png');
    });
    await step(F, 'no console errors or CSP violations (player)', page, async () => noProblems(problems));
    await step(F, "the umpire's battle: another action landed first, shown in sight", page, async () => {
      const c = await api(BASE, 'POST', '/v1/campaigns', null, { name: 'Phone battle', sides: [{ name: 'blue' }, { name: 'red' }] });
      const ids = {};
      for (const [name, side] of [['B1', 'blue'], ['B2', 'blue'], ['R1', 'red']]) {
        ids[name] = (await api(BASE, 'POST', `/v1/campaigns/${c.id}/units`, c.umpire_token, { name, side, matrix: { quality: 0 } })).id;
      }
      const b = await api(BASE, 'POST', `/v1/campaigns/${c.id}/battles`, c.umpire_token, {
        system: 'matrix', turn: 1, kind: 'open',
        attacker: { side: 'blue', units: [ids.B1, ids.B2] },
        defender: { side: 'red', units: [ids.R1] },
        line: [{ attacker: [ids.B1], defender: [ids.R1] }],
        dice: { source: 'entered' },
      });
      await page.locator(tid('logout')).click();
      await signIn(page, c.umpire_token, 'umpire', 'Phone battle');
      await page.goto(new URL(`/#/battles/${b.id}`, BASE).href);
      await page.locator(tid('battle-roll')).waitFor();
      // Another umpire (the API) rolls first: just before this page's
      // request reaches the service.
      await page.route('**/actions', async (route) => {
        await api(BASE, 'POST', `/v1/campaigns/${c.id}/battles/${b.id}/actions`, c.umpire_token, { action: 'roll', combat: 0, expect_actions: 0, dice: { B1: 3, R1: 3 } });
        await route.continue();
      }, { times: 1 });
      await page.locator(tidOf('die-input', 'data-unit-name', 'B1')).fill('6');
      await page.locator(tidOf('die-input', 'data-unit-name', 'R1')).fill('1');
      await page.locator(tid('battle-roll')).scrollIntoViewIfNeeded();
      await page.locator(tid('battle-roll')).click();
      const message = page.locator(`.flash ${tid('error')}`);
      await message.waitFor();
      await page.waitForTimeout(300); // the scroll into view is smooth on some pages
      await checkInView(page, message, 'the "another action landed first" message');
      const text = await message.innerText();
      check(/landed first/.test(text) && /1 action\b/.test(text), `the message says "${text}"`);
      check(expectRefusals(problems, 409) >= 1, 'no 409 from the service');
      await checkNoSidewaysScroll(page, 'the battle page');
      await shot(page, '53-battle-conflict-390.png');
    });
    await step(F, 'no console errors or CSP violations (umpire)', page, async () => noProblems(problems));
  } finally {
    await context.close();
  }
}
