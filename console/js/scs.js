// The SCS combat form: the attacking stack (units of one side) against the
// defending one (another side), each unit's multipliers, the combat
// results table (built-in or the campaign's), column shifts, the owners'
// retreat orders, and the table's two dice when entered.

import { h, replace, field, select, numberInput, checkbox } from './dom.js';
import { getJSON, getAll, createRoller } from './api.js';
import { sides, cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue, errorBox } from './forms.js';
import { diceControls, dieInput } from './dice.js';
import { oddsPanel, renderScs } from './odds.js';

/** "1/2 2 0.5" → ["1/2", 2, "0.5"]: whole numbers as numbers, the rest as given. */
export function parseMultipliers(text) {
  return text
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((m) => (/^[0-9]+$/.test(m) ? Number(m) : m));
}

export function scsForm(ctx) {
  const fields = new FieldMap();
  const roller = createRoller();
  const units = ctx.units.filter((u) => u.scs && !u.eliminated && u.scs.steps_left > 0);
  let entered = false;
  const sideOpts = sides().map((s) => ({ value: s.id, label: s.name }));

  const stacks = {
    attackers: stackPicker('attackers', 'Attacker', sideOpts[0] && sideOpts[0].value),
    defenders: stackPicker('defenders', 'Defender', sideOpts[1] && sideOpts[1].value),
  };

  function stackPicker(key, label, initialSide) {
    const sideSel = select(sideOpts, { testid: `scs-${key}-side` }, initialSide);
    const list = h('ul', { class: 'unit-picks' });
    const rows = [];
    const draw = () => {
      rows.length = 0;
      const mine = units.filter((u) => u.side.id === sideSel.value);
      replace(
        list,
        mine.length
          ? mine.map((u) => {
              const c = u.scs;
              const shown = c.side_shown === 'reduced' && c.reduced ? c.reduced : c;
              const value = key === 'attackers' ? shown.attack : shown.defense;
              const pick = checkbox(
                h('span', null, u.name, ' ', h('small', null, `${key === 'attackers' ? 'attack' : 'defense'} ${value ?? '–'} (${c.side_shown}), ${c.steps_left}/${c.steps} steps${c.out_of_supply ? ', out of supply' : ''}`)),
                { testid: 'scs-unit', 'data-role': key, 'data-side': u.side.name, 'data-unit-name': u.name, disabled: key === 'attackers' && value === null },
              );
              const mult = h('input', { type: 'text', class: 'small', placeholder: 'e.g. 1/2', testid: 'scs-multipliers', 'data-unit-name': u.name, autocomplete: 'off' });
              const extra = h('div', { class: 'unit-extra', hidden: true }, field('Multipliers (terrain…)', mult, 'Space separated: 2, 1/2, 0.5', 'inline'));
              pick.input.addEventListener('change', () => {
                extra.hidden = !pick.input.checked;
              });
              rows.push({ unit: u, pick: pick.input, mult });
              return h('li', { class: 'unit-pick' }, pick.el, extra);
            })
          : h('li', { class: 'empty' }, 'No SCS unit of this side in play.'),
      );
    };
    sideSel.addEventListener('change', draw);
    draw();
    fields.set(key, sideSel);
    const el = h('fieldset', { class: 'side-pick' }, h('legend', null, label), field('Side', sideSel), list);
    return { el, rows, sideSel };
  }

  // Tables: the built-in ones and the campaign's own (a campaign's wins by name).
  const tableSel = select([], { testid: 'scs-table' });
  const tableInfo = h('p', { class: 'hint' });
  fields.set('table', tableSel);
  const tables = new Map();
  (async () => {
    try {
      const [builtin, own] = await Promise.all([getJSON('/v1/tables'), getAll(cpath('/tables'))]);
      for (const t of builtin.items) tables.set(t.name, t);
      for (const t of own) tables.set(t.name, t);
      replace(
        tableSel,
        [...tables.values()].map((t) =>
          h('option', { value: t.name }, `${t.name} (${t.builtin ? 'built-in' : 'campaign'}${t.example ? ', example' : ''}, ${t.roll})`),
        ),
      );
      describeTable();
    } catch (err) {
      tableInfo.replaceWith(errorBox(err));
    }
  })();
  function describeTable() {
    const t = tables.get(tableSel.value);
    tableInfo.textContent = t ? `Columns: ${t.columns.join(' ')}${t.note ? `. ${t.note}` : ''}` : '';
  }
  tableSel.addEventListener('change', describeTable);

  const shift = numberInput({ min: -20, max: 20, value: 0, testid: 'scs-column-shift' });
  const overrun = checkbox('Overrun');
  fields.set('column_shift', shift);
  fields.set('overrun', overrun.input);

  const retreat = (key, label) => {
    const conv = numberInput({ min: 0, max: 20, placeholder: '0', class: 'small', testid: `scs-${key}-convert` });
    const ezoc = numberInput({ min: 0, max: 20, placeholder: '0', class: 'small' });
    const blocked = numberInput({ min: 0, max: 20, placeholder: '0', class: 'small' });
    fields.set(`${key}.convert_to_steps`, conv);
    fields.set(`${key}.ezoc_hexes`, ezoc);
    fields.set(`${key}.blocked_hexes`, blocked);
    fields.set(key, conv);
    return {
      el: h(
        'fieldset',
        null,
        h('legend', null, label),
        h('div', { class: 'row' }, field('Hexes converted to steps', conv), field('Enemy ZOC hexes', ezoc), field('Blocked hexes', blocked)),
      ),
      value() {
        const o = {};
        for (const [k, el] of [['convert_to_steps', conv], ['ezoc_hexes', ezoc], ['blocked_hexes', blocked]]) {
          const v = intValue(el, k);
          if (v) o[k] = v;
        }
        return Object.keys(o).length ? o : null;
      },
    };
  };
  const attackerRetreat = retreat('attacker_retreat', "Attacker's retreat orders");
  const defenderRetreat = retreat('defender_retreat', "Defender's retreat orders");

  const die1 = dieInput(6, { 'data-die': '1', 'aria-label': 'First die' });
  const die2 = dieInput(6, { 'data-die': '2', 'aria-label': 'Second die' });
  fields.set('roll', die1);
  const rollBox = h(
    'fieldset',
    { class: 'entered-roll', hidden: true },
    h('legend', null, "The table's two dice"),
    h('p', { class: 'hint' }, 'Leave both empty when the odds are off the left of the table: no die is rolled then.'),
    h('div', { class: 'row' }, field('First die (tens for d66)', die1), field('Second die', die2)),
  );

  const note = h('input', { type: 'text', maxlength: 500, testid: 'combat-note' });
  fields.set('note', note);
  const dice = diceControls({
    fields,
    enteredHint: "Type the table's two dice below.",
    onSourceChange(source) {
      entered = source === 'entered';
      rollBox.hidden = !entered;
    },
  });

  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'SCS combat' },
    h('h2', null, 'SCS combat'),
    h('p', { class: 'hint' }, 'Strengths are multiplied out exactly, the odds rounded and one column of the table read on one roll. Steps lost stay lost.'),
    h('div', { class: 'sides-grid' }, stacks.attackers.el, stacks.defenders.el),
    h('div', { class: 'row' }, field('Combat results table', tableSel), field('Column shifts (+ for the attacker)', shift), overrun.el),
    tableInfo,
    h('details', { class: 'options' }, h('summary', null, "Owners' orders for a retreat result"), attackerRetreat.el, defenderRetreat.el),
    field('Note (optional)', note),
    dice.el,
    rollBox,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'combat-submit' }, 'Resolve the combat')),
  );

  function stackBody(key) {
    const picked = stacks[key].rows.filter((r) => r.pick.checked);
    if (!picked.length) throw new FormError(`Tick at least one ${key === 'attackers' ? 'attacking' : 'defending'} unit.`, stacks[key].sideSel);
    return picked.map((r, i) => {
      const u = { unit: r.unit.id };
      fields.set(`${key}[${i}]`, r.pick);
      fields.set(`${key}[${i}].unit`, r.pick);
      fields.set(`${key}[${i}].multipliers`, r.mult);
      const m = parseMultipliers(r.mult.value);
      if (m.length) u.multipliers = m;
      return u;
    });
  }

  // The chances of the combat as the form stands (no roll needed).
  form.append(oddsPanel({ system: 'scs', request: () => body(true), render: renderScs }).el);

  function body(forOdds = false) {
    if (stacks.attackers.sideSel.value === stacks.defenders.sideSel.value) {
      throw new FormError('The attackers and the defenders must be of two sides.', stacks.defenders.sideSel);
    }
    if (!tableSel.value) throw new FormError('Pick a combat results table.', tableSel);
    const req = { table: tableSel.value, attackers: stackBody('attackers'), defenders: stackBody('defenders') };
    const s = intValue(shift, 'Column shifts');
    if (s) req.column_shift = s;
    if (overrun.input.checked) req.overrun = true;
    const ar = attackerRetreat.value();
    const dr = defenderRetreat.value();
    if (ar) req.attacker_retreat = ar;
    if (dr) req.defender_retreat = dr;
    if (forOdds) return req;
    req.dice = dice.request();
    if (entered) {
      // Both empty: no roll, as when the odds are off the table (the
      // service says so if the table is to be read).
      const a = intValue(die1, 'First die');
      const b = intValue(die2, 'Second die');
      if (a !== undefined || b !== undefined) {
        if (a === undefined) throw new FormError('Type the first die.', die1);
        if (b === undefined) throw new FormError('Type the second die.', die2);
        req.roll = [a, b];
      }
    }
    const n = textValue(note);
    if (n) req.note = n;
    return req;
  }

  onSubmit(form, fields, async () => {
    const { data, replayed } = await ctx.roll(roller, cpath('/combats/scs'), body());
    ctx.showResult(data, replayed);
  });
  return form;
}
