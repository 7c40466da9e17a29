// A Matrix battle as it stands (armies, combats; the result is drawn by
// result-matrix.js) and the umpire's actions on it: roll a combat, commit
// a reserve, accept a result.

import { h, field, select } from './dom.js';
import { FieldMap, FormError, actions, intValue } from './forms.js';
import { dieInput } from './dice.js';
import { oddsPanel, renderMatrix } from './odds.js';
import { ARMIES, armyName, matrixArmies, matrixCombat, matrixOutcome } from './result-matrix.js';

const RESULT_TEXT = {
  even: 'even: nothing happens',
  repulsed: 'repulsed',
  beaten: 'beaten',
  routed: 'routed',
};

function combatTitle(c) {
  return `Combat ${c.index + 1}: ${c.attacker.join(' + ')} against ${c.defender.join(' + ')}`;
}

function combatState(c, setup) {
  if (!c.rolled) return 'not rolled yet';
  const loser = c.loser ? `${armyName(setup, c.loser)} ${RESULT_TEXT[c.result] || c.result}` : RESULT_TEXT.even;
  return `${c.scores.attacker} to ${c.scores.defender}: ${loser}${c.accepted ? ' (accepted)' : ' (not accepted yet)'}`;
}

/** The battle's armies and combats. */
export function matrixState(b) {
  const { setup } = b;
  return h(
    'section',
    { class: 'battle-state', testid: 'battle-state' },
    h('p', { class: 'hint' }, `${setup.kind === 'skirmish' ? 'Skirmish' : 'Open battle'}; the army state counts ${setup.basis === 'battle' ? "both armies'" : `the ${setup.basis}'s`} units.`),
    h('h2', null, 'Armies'),
    matrixArmies(b),
    h('h2', null, 'Combats'),
    h('ol', { class: 'combats plain' }, b.combats.map((c) => matrixCombat(b, c, { testid: 'battle-combat', 'data-combat': c.index }))),
    b.escalated ? h('p', { class: 'notice' }, 'Both armies committed all their reserves: the skirmish escalated into an open battle.') : null,
  );
}

/** The result once there is one: the banner and every unit's fate (null before). */
export function matrixResult(b) {
  if (!b.result) return null;
  const o = matrixOutcome(b);
  return h('section', { class: 'battle-result', testid: 'battle-result' }, o.banner, o.fates);
}

/**
 * The umpire's next actions. `act(form, makeRequest, fields)` sends one.
 * A combat is rolled, reinforced and accepted before the next is rolled.
 */
export function matrixActions(b, act) {
  const entered = b.dice.source === 'entered';
  const active = b.combats.find((c) => c.rolled && !c.accepted);
  const parts = [];

  if (active) {
    parts.push(h('p', null, h('strong', null, combatTitle(active)), ': ', combatState(active, b.setup)));
    for (const army of ARMIES) {
      const a = b.armies[army];
      const free = a.reserve.filter((r) => !r.committed);
      if (a.may_commit_reserves && free.length) parts.push(commitForm(active, army, free, entered, act, b));
    }
    parts.push(acceptForm(active, act));
  } else {
    const open = b.combats.filter((c) => !c.rolled);
    if (!open.length) parts.push(h('p', null, 'Every combat is settled.'));
    for (const c of open) parts.push(rollForm(c, entered, act));
  }
  return h('div', { class: 'matrix-actions' }, parts);
}

function rollForm(c, entered, act) {
  const fields = new FieldMap();
  const units = [...c.attacker, ...c.defender];
  const dice = entered
    ? units.map((u) => {
        const input = dieInput(6, { 'data-unit-name': u, 'aria-label': `${u}'s die` });
        fields.set(`dice.${u}`, input);
        return input;
      })
    : [];
  if (dice.length) fields.set('dice', dice[0]);
  const button = h('button', { type: 'submit', class: 'primary', testid: 'battle-roll', 'data-combat': c.index }, `Roll combat ${c.index + 1}`);
  const form = h(
    'form',
    { class: 'action-form', novalidate: true },
    h('p', null, combatTitle(c)),
    entered ? h('div', { class: 'dice-row' }, units.map((u, i) => field(u, dice[i], null, 'inline'))) : null,
    actions(button),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, () => {
      const req = { action: 'roll', combat: c.index };
      if (entered) {
        req.dice = {};
        units.forEach((u, i) => {
          const v = intValue(dice[i], `${u}'s die`);
          if (v === undefined) throw new FormError(`Type ${u}'s die.`, dice[i]);
          req.dice[u] = v;
        });
      }
      return req;
    }, fields);
  });
  fields.set('combat', button);
  return form;
}

function commitForm(c, army, free, entered, act, b) {
  const { setup } = b;
  const fields = new FieldMap();
  const unit = select(
    free.map((r) => r.unit),
    { testid: 'battle-commit-unit', 'data-army': army },
  );
  const die = entered ? dieInput(6, { 'data-army': army, 'aria-label': 'The reserve’s die' }) : null;
  fields.set('unit', unit);
  fields.set('army', unit);
  fields.set('die', die);
  const form = h(
    'form',
    { class: 'action-form', novalidate: true },
    h(
      'div',
      { class: 'row' },
      field(`Commit a reserve of ${armyName(setup, army)} (it throws at −1)`, unit),
      die ? field('Its die', die) : null,
    ),
    actions(h('button', { type: 'submit', testid: 'battle-commit', 'data-army': army }, 'Commit')),
  );
  // The chances before committing: the battle now and if the chosen reserve joins.
  const names = { attacker: armyName(setup, 'attacker'), defender: armyName(setup, 'defender') };
  form.append(
    oddsPanel({
      system: 'matrix',
      label: 'Chances with this reserve',
      testid: 'reserve-odds',
      request: () => ({ battle: b.id, expect_actions: b.n_actions, odds: { reserve: { combat: c.index, army, unit: unit.value } } }),
      render: (a) => renderMatrix(a, names),
    }).el,
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, () => {
      const req = { action: 'commit', combat: c.index, army, unit: unit.value };
      if (die) {
        const v = intValue(die, 'The die');
        if (v === undefined) throw new FormError('Type the reserve’s die.', die);
        req.die = v;
      }
      return req;
    }, fields);
  });
  return form;
}

function acceptForm(c, act) {
  const fields = new FieldMap();
  const button = h('button', { type: 'submit', class: 'primary', testid: 'battle-accept', 'data-combat': c.index }, `Accept combat ${c.index + 1}'s result`);
  fields.set('combat', button);
  const form = h(
    'form',
    { class: 'action-form', novalidate: true },
    h('p', { class: 'hint' }, 'Once accepted no reserve may join it. Accepting the last combat ends the battle.'),
    actions(button),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, () => ({ action: 'accept', combat: c.index }), fields);
  });
  return form;
}
