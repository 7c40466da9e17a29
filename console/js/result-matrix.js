// A Matrix battle for people (docs/rules/matrix.md), from the battle
// (GET .../battles/{id}) or its record (the combat report): the banner
// (the winning side by name, the routed units), every combat with each
// unit's die and score terms (die + quality + the army's argument, ambush
// and exhaustion, −1 for a reserve), and every unit's fate.

import { h, signed } from './dom.js';
import { breakdown } from './dicefaces.js';
import { resultBanner, fateItem, worstFirst, names } from './outcome.js';

export const ARMIES = ['attacker', 'defender'];

const RESULT_WORDS = { even: 'even: nothing happens', repulsed: 'repulsed', beaten: 'beaten', routed: 'routed' };

/** The setup, whether from a battle or its record. */
export function matrixSetup(b) {
  return b.setup || (b.input && b.input.setup);
}

/** "russian (attacker)". */
export function armyName(setup, army) {
  const name = setup && setup[army] && setup[army].name;
  return name ? `${name} (${army})` : `the ${army}`;
}

/** The winning side's name, '' for a draw or a battle not over. */
export function matrixWinner(b) {
  const setup = matrixSetup(b);
  return b.result && b.result.winner ? setup[b.result.winner].name : '';
}

/** A unit's fate from the result: routed, beaten, repulsed or held. */
export function matrixFate(res) {
  return res || 'held';
}

/** The terms of the army's modifier, as far as the setup tells them. */
function armyTerms(setup, armies, army) {
  const s = setup[army];
  const terms = [
    { value: s.argument || 0, label: 'argument' },
    { value: setup.ambush === army ? 1 : 0, label: 'ambush' },
    { value: s.exhausted ? -1 : 0, label: 'exhausted' },
  ];
  const known = terms.reduce((n, t) => n + t.value, 0);
  const modifier = armies && armies[army] ? armies[army].modifier : known;
  if (modifier !== known) terms.push({ value: modifier - known, label: 'army modifier' });
  return terms;
}

function quality(setup, army, name) {
  const u = setup[army].units.find((x) => x.name === name);
  return u ? u.quality : 0;
}

/** One side of a combat: each unit's die and score, and the side's sum. */
function combatSide(b, c, army) {
  const setup = matrixSetup(b);
  const lost = c.loser === army;
  const head = h('p', { class: 'combat-side-head' }, h('strong', null, armyName(setup, army)), c.rolled ? `: ${c.scores[army]}` : '');
  if (!c.rolled) return h('div', { class: 'combat-side' }, head, h('p', { class: 'hint' }, c[army].join(' + ')));
  const mod = armyTerms(setup, b.armies, army);
  const rows = c[army].map((name) => {
    const die = c.dice[name];
    const terms = [{ value: quality(setup, army, name), label: 'quality' }, ...mod];
    const score = die + terms.reduce((n, t) => n + t.value, 0);
    return h('li', null, h('span', { class: 'who' }, name), ' ', breakdown(die, terms, score, { naturalLabel: `rolled ${die}` }));
  });
  for (const r of (c.reserves || []).filter((x) => x.army === army)) {
    const terms = [{ value: quality(setup, army, r.unit), label: 'quality' }, ...mod, { value: -1, label: 'reserve' }];
    const score = r.die + terms.reduce((n, t) => n + t.value, 0);
    rows.push(h('li', null, h('span', { class: 'who' }, `${r.unit} (reserve)`), ' ', breakdown(r.die, terms, score, { naturalLabel: `rolled ${r.die}` })));
  }
  return h('div', { class: ['combat-side', lost && 'lost', c.loser && !lost && 'won'] }, head, h('ul', { class: 'plain score-list' }, rows));
}

/** One combat of the line, rolled or not. */
export function matrixCombat(b, c, props = {}) {
  const setup = matrixSetup(b);
  let state = 'not rolled yet';
  if (c.rolled) {
    state = `${c.scores.attacker} to ${c.scores.defender}: ${c.loser ? `${armyName(setup, c.loser)} ${RESULT_WORDS[c.result] || c.result}` : RESULT_WORDS.even}`;
    state += c.accepted ? '' : ' (not accepted yet)';
  }
  return h(
    'li',
    { class: ['matrix-combat', c.accepted && 'done'], ...props },
    h('h3', null, `Combat ${c.index + 1}: ${c.attacker.join(' + ')} against ${c.defender.join(' + ')}`),
    h('div', { class: 'combat-sides' }, combatSide(b, c, 'attacker'), h('span', { class: 'versus' }, 'against'), combatSide(b, c, 'defender')),
    h('p', { class: ['combat-state', c.loser && 'decided'] }, state),
  );
}

/** The banner and every unit's fate, once the battle has a result. */
export function matrixOutcome(b) {
  const setup = matrixSetup(b);
  const r = b.result;
  const winner = matrixWinner(b);
  const sideOf = (name) => ARMIES.find((a) => setup[a].units.some((u) => u.name === name));
  const entries = Object.entries(r.unit_results).map(([name, res]) => ({ name, army: sideOf(name), fate: matrixFate(res) }));
  const routed = entries.filter((e) => e.fate === 'routed');
  const headline = winner
    ? `${winner} wins: casualty points ${setup[r.winner].name} ${r.casualty_points[r.winner]}, ${setup[r.loser].name} ${r.casualty_points[r.loser]}`
    : `A draw: casualty points ${setup.attacker.name} ${r.casualty_points.attacker}, ${setup.defender.name} ${r.casualty_points.defender}`;
  const facts = [
    `Army state: ${r.army_state}.`,
    winner ? (r.winner_can_pursue ? `${winner} may pursue.` : `${winner} may not pursue.`) : null,
    winner && r.winner_must_withdraw ? `${winner} must withdraw.` : null,
    r.exhausted.length ? `Exhausted next turn: ${names(r.exhausted.map((a) => setup[a].name))}.` : null,
  ];
  const items = worstFirst(entries).map((e) => {
    const what =
      e.fate === 'held'
        ? 'its combat did not go against it'
        : e.fate === 'routed'
          ? 'routed: out of the campaign'
          : e.fate;
    return fateItem({ name: e.name, side: e.army ? setup[e.army].name : '', fate: e.fate, body: h('p', { class: 'after' }, what) });
  });
  const idle = ARMIES.flatMap((a) => (b.armies ? b.armies[a].reserve.filter((x) => !x.committed).map((x) => x.unit) : []));
  return {
    banner: resultBanner({
      winner,
      tone: winner ? 'win' : 'draw',
      headline,
      fallen: routed.map((e) => ({ name: e.name, side: e.army ? setup[e.army].name : '', fate: 'routed' })),
      facts,
    }),
    fates: h(
      'section',
      { class: 'fates' },
      h('h2', null, 'The units'),
      h('ul', { class: 'unit-outcomes' }, items),
      idle.length ? h('p', { class: 'hint' }, `Stayed in reserve: ${names(idle)}.`) : null,
    ),
  };
}

/** The armies: sides, units with their quality, modifier, reserve. */
export function matrixArmies(b) {
  const setup = matrixSetup(b);
  return h(
    'div',
    { class: 'sides-grid' },
    ARMIES.map((army) => {
      const s = setup[army];
      const a = b.armies ? b.armies[army] : null;
      const reserve = a && a.reserve.length ? a.reserve.map((r) => `${r.unit}${r.committed ? ' (committed)' : ''}`).join(', ') : 'none';
      const mods = armyTerms(setup, b.armies, army).filter((t) => t.value);
      return h(
        'section',
        { class: 'army' },
        h('h3', null, armyName(setup, army)),
        h('p', null, s.units.map((u) => `${u.name} (quality ${signed(u.quality)})`).join(', ')),
        h('p', { class: 'hint' }, `Modifier ${signed(a ? a.modifier : 0)}${mods.length ? `: ${mods.map((t) => `${t.label} ${signed(t.value)}`).join(', ')}` : ''}. Reserve: ${reserve}.`),
      );
    }),
  );
}

/** The whole record of a finished battle, as a combat report. */
export function matrixView(r) {
  const parts = [];
  if (r.result) {
    const o = matrixOutcome(r);
    parts.push(o.banner);
    parts.push(o.fates);
  }
  parts.push(h('h2', null, 'Armies'), matrixArmies(r));
  parts.push(h('h2', null, 'Combats'), h('ol', { class: 'combats plain' }, r.combats.map((c) => matrixCombat(r, c))));
  return parts;
}
