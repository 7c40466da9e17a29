// A Civilization battle as it stands (armies, pieces alive, phases with
// every term of both totals) and the umpire's next phase: the larger
// army's wave, the aircraft's support, and the dice when entered.

import { h, replace, field, select, checkbox, signed } from './dom.js';
import { FieldMap, FormError, actions, intValue } from './forms.js';
import { dieInput } from './dice.js';
import { oddsPanel, renderCiv } from './odds.js';
import { ERAS } from './format.js';
import { ARMIES, civArmyName, civArmies, civPhase, civOutcome } from './result-civ.js';
const SUPPORT_ORDER = ['infantry', 'cavalry', 'artillery', 'other'];

/** Each army's pieces still alive, regular and aircraft, in the order listed. */
function alive(b, army) {
  const left = new Set(b.survivors[army]);
  const pieces = b.setup[army].units.filter((u) => left.has(u.name));
  return {
    regular: pieces.filter((u) => u.class !== 'aircraft'),
    aircraft: pieces.filter((u) => u.class === 'aircraft'),
  };
}

/** The class aircraft support by default: most pieces in the wave, ties in SUPPORT_ORDER. */
export function defaultSupport(wave) {
  let best = null;
  let most = 0;
  for (const cls of SUPPORT_ORDER) {
    const n = wave.filter((u) => u.class === cls).length;
    if (n > most) {
      best = cls;
      most = n;
    }
  }
  return best;
}

/** How many aircraft fly: one per wave piece of the class they support. */
export function flyingAircraft(wave, aircraft, support) {
  const cls = support || defaultSupport(wave);
  const n = cls ? wave.filter((u) => u.class === cls).length : 0;
  return aircraft.slice(0, Math.min(n, aircraft.length));
}

/** The battle as it stands: era, settlement, whose wave is next, the pieces, the phases. */
export function civState(b) {
  const { setup } = b;
  const name = (army) => civArmyName(setup, army);
  const next = b.next_wave
    ? b.next_wave.picked_by
      ? `Next phase: ${name(b.next_wave.picked_by)} picks a wave of ${b.next_wave.size}; the other army sends every regular piece.`
      : `Next phase: the armies are the same size; both send everything (${b.next_wave.size}).`
    : null;
  return h(
    'section',
    { class: 'battle-state', testid: 'battle-state' },
    h(
      'p',
      null,
      `Era ${setup.current_era} (${ERAS[setup.current_era]}). `,
      setup.settlement ? `The defender holds a settlement${setup.great_wall ? ' with the Great Wall' : ''}. ` : '',
    ),
    next ? h('p', { class: 'notice' }, next) : null,
    h('h2', null, 'Armies'),
    civArmies(b),
    b.phases.length ? h('h2', null, 'Phases') : null,
    h('ol', { class: 'phases plain' }, b.phases.map((p) => civPhase(b, p, { testid: 'battle-phase', 'data-phase': p.index }))),
  );
}

/** The result once over: the banner and every piece's fate (null before). */
export function civResult(b) {
  if (!b.over) return null;
  const o = civOutcome(b);
  return h('section', { class: 'battle-result', testid: 'battle-result' }, o.banner, o.fates);
}

/** The next phase's orders and dice. `act(form, makeRequest, fields)` sends it. */
export function civActions(b, act) {
  if (!b.next_wave) return h('p', null, 'The battle is over.');
  const entered = b.dice.source === 'entered';
  const fields = new FieldMap();
  const armies = {};

  const form = h('form', { class: 'action-form', novalidate: true });
  const grid = h('div', { class: 'sides-grid' });

  for (const army of ARMIES) {
    const { regular, aircraft } = alive(b, army);
    const picks = b.next_wave.picked_by === army;
    const a = { regular, aircraft, picks, boxes: [], support: null, diceBox: h('div', { class: 'dice-row' }), dieInputs: [] };
    armies[army] = a;
    const parts = [];
    if (picks) {
      parts.push(h('p', { class: 'hint' }, `Pick the wave: exactly ${b.next_wave.size} of its regular pieces.`));
      const list = h('ul', { class: 'unit-picks' });
      regular.forEach((u, i) => {
        const box = checkbox(`${u.name} (${u.class}, era ${u.era}, ${signed(u.bonus)})`, {
          testid: 'civ-wave',
          'data-army': army,
          'data-unit-name': u.name,
          checked: i < b.next_wave.size,
        });
        box.input.addEventListener('change', redrawDice);
        a.boxes.push({ unit: u, input: box.input });
        list.append(h('li', null, box.el));
      });
      parts.push(list);
      fields.set(`${army}.wave`, a.boxes[0] && a.boxes[0].input);
    } else {
      parts.push(h('p', null, `Sends every regular piece: ${regular.map((u) => u.name).join(', ')}.`));
    }
    if (aircraft.length) {
      a.support = select(
        [{ value: '', label: 'the class with most pieces in the wave' }, ...SUPPORT_ORDER.map((c) => ({ value: c, label: c }))],
        { testid: 'civ-support', 'data-army': army },
      );
      a.support.addEventListener('change', redrawDice);
      fields.set(`${army}.aircraft_support`, a.support);
      parts.push(field(`Its aircraft (${aircraft.map((u) => u.name).join(', ')}) support`, a.support));
    }
    if (entered) parts.push(a.diceBox);
    grid.append(h('fieldset', { class: 'side-pick' }, h('legend', null, `${army === 'attacker' ? 'Attacker' : 'Defender'}: ${b.setup[army].name}`), parts));
  }

  /** The wave an army sends: its ticks for the picker, everything otherwise. */
  function wave(army) {
    const a = armies[army];
    return a.picks ? a.boxes.filter((x) => x.input.checked).map((x) => x.unit) : a.regular;
  }

  /** One die input per wave piece, then per aircraft that flies. */
  function redrawDice() {
    if (!entered) return;
    for (const army of ARMIES) {
      const a = armies[army];
      const w = wave(army);
      const flying = flyingAircraft(w, a.aircraft, a.support ? a.support.value : '');
      const throwers = [...w, ...flying];
      const keep = new Map(a.dieInputs.map((d) => [d.dataset.unitName, d.value]));
      a.dieInputs = throwers.map((u, k) => {
        const input = dieInput(6, { 'data-army': army, 'data-unit-name': u.name, value: keep.get(u.name) || '', 'aria-label': `${u.name}'s die` });
        fields.set(`dice.${army}[${k}]`, input);
        return input;
      });
      fields.set(`dice.${army}`, a.dieInputs[0]);
      replace(a.diceBox, h('span', { class: 'dice-label' }, 'Dice:'), throwers.map((u, k) => field(u.name, a.dieInputs[k], null, 'inline')));
    }
    fields.set('dice', armies.attacker.dieInputs[0]);
  }
  redrawDice();

  form.append(
    grid,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'battle-phase-submit' }, `Fight phase ${b.phases.length + 1}`)),
  );
  /** The phase action; for the odds, its orders only (no dice). */
  function phaseRequest(forOdds) {
    const req = forOdds ? { battle: b.id, expect_actions: b.n_actions, odds: { battle: false } } : { action: 'phase' };
    for (const army of ARMIES) {
      const a = armies[army];
      const orders = {};
      if (a.picks) {
        const w = wave(army);
        if (w.length !== b.next_wave.size) {
          const n = b.next_wave.size;
          throw new FormError(`The ${army}'s wave must be exactly ${n} piece${n === 1 ? '' : 's'} (${w.length} ticked).`, a.boxes[0] && a.boxes[0].input);
        }
        orders.wave = w.map((u) => u.name);
        const ticked = a.boxes.filter((x) => x.input.checked);
        ticked.forEach((x, k) => fields.set(`${army}.wave[${k}]`, x.input));
      }
      if (a.support && a.support.value) orders.aircraft_support = a.support.value;
      if (Object.keys(orders).length) req[army] = orders;
    }
    if (entered && !forOdds) {
      req.dice = {};
      for (const army of ARMIES) {
        req.dice[army] = armies[army].dieInputs.map((d) => {
          const v = intValue(d, `${d.dataset.unitName}'s die`);
          if (v === undefined) throw new FormError(`Type ${d.dataset.unitName}'s die.`, d);
          return v;
        });
      }
    }
    return req;
  }
  // The chances of the next phase with the wave chosen (nothing rolled).
  form.append(oddsPanel({ system: 'civ', request: () => phaseRequest(true), render: renderCiv, testid: 'civ-odds' }).el);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act(form, () => phaseRequest(false), fields);
  });
  return form;
}
