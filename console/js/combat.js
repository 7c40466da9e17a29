// #/combat/<system>: the umpire's combat forms, one made for each system.
// SCRUD, EDNA and SCS resolve at once and show their result here; Matrix
// and Civilization create an interactive battle, then open it.

import { h, replace, field, select, announce } from './dom.js';
import { getAll, ApiError } from './api.js';
import { cpath, isUmpire, refreshCampaign } from './session.js';
import { errorBox } from './forms.js';
import { combatResult } from './results.js';
import { systemTitle } from './format.js';
import { scrudForm } from './scrud.js';
import { ednaForm } from './edna.js';
import { scsForm } from './scs.js';
import { matrixForm } from './matrix.js';
import { civForm } from './civ.js';

const SYSTEMS = [
  { value: 'scrud', label: 'SCRUD: small fights', form: scrudForm },
  { value: 'edna', label: 'EDNA: morale tests', form: ednaForm },
  { value: 'scs', label: 'SCS: odds combat on a results table', form: scsForm },
  { value: 'matrix', label: 'Matrix: an interactive battle', form: matrixForm },
  { value: 'civ', label: 'Civilization: an interactive battle in waves', form: civForm },
];

export async function renderCombat(view, system) {
  view.append(h('h1', null, 'Combat'));
  if (!isUmpire()) {
    view.append(h('p', { class: 'notice' }, 'Only the umpire runs combats. The reports of every combat are under Reports.'));
    return;
  }
  const def = SYSTEMS.find((s) => s.value === system);
  if (!def) {
    location.replace('#/combat/scrud');
    return;
  }
  const picker = select(
    SYSTEMS.map(({ value, label }) => ({ value, label })),
    { testid: 'combat-system' },
    system,
  );
  picker.addEventListener('change', () => {
    location.hash = `#/combat/${picker.value}`;
  });
  view.append(field('Combat system', picker));

  const formArea = h('div', { class: 'combat-form' }, h('p', null, 'Loading the units…'));
  const resultArea = h('section', { class: 'card combat-result', testid: 'combat-result', 'aria-live': 'polite', hidden: true });
  view.append(resultArea, formArea);

  // The form is drawn again after each combat: the units' state changed.
  const sideOf = new Map(); // unit id → side name, for the result (EDNA names no side)
  async function drawForm() {
    try {
      const units = await getAll(cpath('/units'), { eliminated: 'false' });
      for (const u of units) sideOf.set(u.id, u.side.name);
      replace(formArea, def.form({ ...ctx, units }));
    } catch (err) {
      replace(formArea, errorBox(err));
    }
  }

  const ctx = {
    /** Send a request that rolls dice; refresh the header's commitment and ledger after. */
    async roll(roller, path, body) {
      try {
        return await roller('POST', path, body);
      } catch (err) {
        // A stale commitment: show the one the campaign has now.
        if (err instanceof ApiError && err.field === 'dice.commitment') refreshCampaign().catch(() => {});
        throw err;
      } finally {
        refreshCampaign().catch(() => {});
      }
    },
    /** A SCRUD, EDNA or SCS combat was resolved: show it, and the form again. */
    showResult(report, replayed) {
      replace(resultArea, ...combatResult(report, { replayed, sideOf }));
      resultArea.hidden = false;
      announce(`${systemTitle(report.system)} combat resolved.`);
      drawForm();
      const heading = resultArea.querySelector('h2');
      if (heading) {
        heading.setAttribute('tabindex', '-1');
        heading.focus({ preventScroll: true });
      }
      resultArea.scrollIntoView({ block: 'start' });
    },
    /** A battle was created: follow it. */
    openBattle(battle) {
      location.hash = `#/battles/${encodeURIComponent(battle.id)}`;
    },
  };
  await drawForm();
}
