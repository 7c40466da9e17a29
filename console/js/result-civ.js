// A Civilization battle for people (docs/rules/civ.md), from the battle
// or its record: the banner (the winning side by name, the pieces
// destroyed), the pieces of each army, and each phase with both armies'
// dice drawn and every term of their totals.
//
// A phase's `damage_lost` belongs to the army that TOOK the damage (what
// of the other army's total destroyed nothing); the console shows it on
// the row of the army that dealt it, as "its damage wasted".

import { h, signed, plural, table } from './dom.js';
import { breakdown, diceRow } from './dicefaces.js';
import { resultBanner, fateItem, worstFirst, names } from './outcome.js';
import { ERAS } from './format.js';

export const ARMIES = ['attacker', 'defender'];
const OTHER = { attacker: 'defender', defender: 'attacker' };

export function civSetup(b) {
  return b.setup || (b.input && b.input.setup);
}

export function civArmyName(setup, army) {
  const name = setup && setup[army] && setup[army].name;
  return name ? `${name} (${army})` : `the ${army}`;
}

/** The winning side's name, '' when none (both destroyed, unresolved, not over). */
export function civWinner(b) {
  const setup = civSetup(b);
  return b.over && b.winner && setup[b.winner] ? setup[b.winner].name : '';
}

/** A piece's fate: destroyed or survived. */
export function civFate(b, army, name) {
  return b.survivors[army].includes(name) ? 'survived' : 'destroyed';
}

/** The sum as terms: the dice (base, times the era, a 6 counting 5), then the rest. */
function phaseBreakdown(part, setup, army) {
  const units = setup[army].units;
  const faces = [...part.wave, ...part.aircraft].map((name, i) => ({ value: part.dice[i], caption: name }));
  const t = part.terms;
  const terms = [
    { value: t.aircraft, label: 'aircraft' },
    { value: t.bonus, label: 'bonus' },
    { value: t.science, label: 'science' },
    { value: t.cia, label: 'CIA' },
    { value: t.settlement, label: 'settlement' },
  ];
  const eras = part.wave.map((n) => (units.find((u) => u.name === n) || {}).era || 1);
  const sameEra = eras.every((e) => e === eras[0]);
  const baseLabel = `base ${t.base}${sameEra && eras.length ? ` (dice × era ${eras[0]}, a 6 counts 5)` : ' (each die × its era, a 6 counts 5)'}`;
  const sum = t.base + terms.reduce((n, x) => n + x.value, 0);
  return breakdown(diceRow(faces), terms, part.total, { naturalLabel: baseLabel, note: sum !== part.total ? `(${sum}, never below 0)` : null });
}

/** One phase: both armies, what each dealt, lost and wasted. */
export function civPhase(b, p, props = {}) {
  const setup = civSetup(b);
  const row = (army) => {
    const a = p[army];
    const wasted = p[OTHER[army]].damage_lost;
    return h(
      'div',
      { class: 'phase-army', 'data-army': army },
      h('p', { class: 'combat-side-head' }, h('strong', null, civArmyName(setup, army)), `: ${a.total} damage`),
      h('p', { class: 'score-line' }, phaseBreakdown(a, setup, army)),
      h(
        'p',
        { class: 'after' },
        a.destroyed.length ? h('strong', { class: 'lost-line' }, `Lost ${names(a.destroyed)}`) : 'Lost nothing',
        `. Its damage wasted: ${wasted}${a.idle_aircraft ? `. ${plural(a.idle_aircraft, 'aircraft', 'aircraft')} sat the phase out` : ''}${a.aircraft_support ? `. Aircraft supported ${a.aircraft_support}` : ''}.`,
      ),
    );
  };
  return h(
    'li',
    { class: 'phase', ...props },
    h('h3', null, `Phase ${p.index + 1}`),
    h('div', { class: 'combat-sides' }, row('attacker'), h('span', { class: 'versus' }, 'against'), row('defender')),
  );
}

/** The banner and every piece's fate, once the battle is over. */
export function civOutcome(b) {
  const setup = civSetup(b);
  const winner = civWinner(b);
  const entries = ARMIES.flatMap((army) => setup[army].units.map((u) => ({ name: u.name, army, fate: civFate(b, army, u.name) })));
  const destroyed = entries.filter((e) => e.fate === 'destroyed');
  const n = plural(b.phases.length, 'phase');
  let headline;
  if (winner) headline = `${winner} wins after ${n}`;
  else if (b.unresolved) headline = `Unresolved after ${n}`;
  else headline = `Both armies destroyed after ${n}`;
  const facts = ARMIES.map((army) => {
    const lost = destroyed.filter((e) => e.army === army).length;
    return `${setup[army].name} lost ${lost} of ${plural(setup[army].units.length, 'piece')}`;
  });
  const items = worstFirst(entries).map((e) =>
    fateItem({ name: e.name, side: setup[e.army].name, fate: e.fate, body: h('p', { class: 'after' }, pieceText(setup[e.army].units.find((u) => u.name === e.name))) }),
  );
  return {
    banner: resultBanner({
      winner,
      tone: winner ? 'win' : 'draw',
      headline,
      fallen: destroyed.map((e) => ({ name: e.name, side: setup[e.army].name, fate: 'destroyed' })),
      facts,
    }),
    fates: h('section', { class: 'fates' }, h('h2', null, 'The pieces'), h('ul', { class: 'unit-outcomes' }, items)),
  };
}

function pieceText(u) {
  if (!u) return '';
  return `${u.class}, era ${u.era} (${ERAS[u.era] || '?'}), bonus ${signed(u.bonus)}${u.class === 'aircraft' ? `, dice ×${u.dice_multiplier || 1}` : ''}`;
}

/** Each army's pieces, alive or destroyed. */
export function civArmies(b) {
  const setup = civSetup(b);
  return h(
    'div',
    { class: 'sides-grid' },
    ARMIES.map((army) =>
      h(
        'section',
        { class: 'army' },
        h('h3', null, civArmyName(setup, army)),
        h('p', { class: 'hint' }, `Technologies ${setup[army].technologies}`),
        table(
          ['Piece', 'Class', 'Era', 'Bonus', 'Now'],
          setup[army].units.map((u) => {
            const gone = !b.survivors[army].includes(u.name);
            return h(
              'tr',
              { class: gone ? 'fallen' : null },
              h('th', { scope: 'row' }, u.name),
              h('td', null, u.class === 'aircraft' ? `aircraft ×${u.dice_multiplier || 1}` : u.class),
              h('td', null, `${u.era} (${ERAS[u.era] || '?'})`),
              h('td', null, signed(u.bonus)),
              h('td', null, gone ? h('span', { class: 'fate fate-worst' }, 'destroyed') : 'alive'),
            );
          }),
        ),
      ),
    ),
  );
}

/** The whole record of a finished battle, as a combat report. */
export function civView(r) {
  const parts = [];
  if (r.over) {
    const o = civOutcome(r);
    parts.push(o.banner, o.fates);
  }
  parts.push(h('h2', null, 'Armies'), civArmies(r));
  parts.push(h('h2', null, 'Phases'), h('ol', { class: 'phases plain' }, r.phases.map((p) => civPhase(r, p))));
  return parts;
}
