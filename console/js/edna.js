// The EDNA test form: the units to test (any sides), each one's modifier
// for this test, the dice and faces, and each unit's dice when entered.

import { h, replace, field, numberInput, checkbox } from './dom.js';
import { createRoller } from './api.js';
import { session, sides, cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue } from './forms.js';
import { diceControls, dieInput } from './dice.js';
import { oddsPanel, renderEdna } from './odds.js';

export function ednaForm(ctx) {
  const fields = new FieldMap();
  const roller = createRoller();
  const base = session.campaign.options.edna;
  const units = ctx.units.filter((u) => u.edna && !u.eliminated && !u.edna.ineffective);
  let entered = false;

  const nDice = numberInput({ min: 1, max: 10, value: base.dice, testid: 'edna-dice' });
  const faces = numberInput({ min: 2, max: 1000, value: base.faces, testid: 'edna-faces' });
  fields.set('options.dice', nDice);
  fields.set('options.faces', faces);
  fields.set('options', nDice);

  const rows = units.map((u) => {
    const pick = checkbox(h('span', null, u.name, ' ', h('small', null, `${u.side.name}, EDNA ${u.edna.edna} of ${u.edna.start}`)), {
      testid: 'edna-unit',
      'data-side': u.side.name,
      'data-unit-name': u.name,
    });
    const modifier = numberInput({ min: -100, max: 100, placeholder: '0', class: 'small', testid: 'edna-modifier', 'data-unit-name': u.name });
    const diceBox = h('div', { class: 'dice-row' });
    const extra = h('div', { class: 'unit-extra', hidden: true }, field('Modifier (positive: harder)', modifier, null, 'inline'), diceBox);
    const row = { unit: u, pick: pick.input, modifier, diceBox, dieInputs: [], extra };
    pick.input.addEventListener('change', () => update(row));
    row.el = h('li', { class: 'unit-pick' }, pick.el, extra);
    return row;
  });

  /** Show the unit's extras when ticked, and one die input per die when entered. */
  function update(row) {
    row.extra.hidden = !row.pick.checked;
    const count = Math.min(Math.max(Number(nDice.value) || base.dice, 1), 10);
    const f = Number(faces.value) || base.faces;
    if (!entered) {
      replace(row.diceBox);
      row.dieInputs = [];
      return;
    }
    const keep = row.dieInputs.map((d) => d.value);
    row.dieInputs = Array.from({ length: count }, (_, i) =>
      dieInput(f, { 'data-unit-name': row.unit.name, 'data-die-index': i, value: keep[i] || '', 'aria-label': `${row.unit.name}'s die ${i + 1} (d${f})` }),
    );
    replace(row.diceBox, h('span', { class: 'dice-label' }, `Dice (${count}d${f}):`), row.dieInputs);
  }
  nDice.addEventListener('change', () => rows.forEach(update));
  faces.addEventListener('change', () => rows.forEach(update));

  const note = h('input', { type: 'text', maxlength: 500, testid: 'combat-note' });
  fields.set('note', note);
  const dice = diceControls({
    fields,
    enteredHint: "Type each tested unit's dice next to it.",
    onSourceChange(source) {
      entered = source === 'entered';
      rows.forEach(update);
    },
  });

  const bySide = sides().map((s) => {
    const mine = rows.filter((r) => r.unit.side.id === s.id);
    return h(
      'fieldset',
      { class: 'side-pick', 'data-side': s.name },
      h('legend', null, s.name),
      mine.length ? h('ul', { class: 'unit-picks' }, mine.map((r) => r.el)) : h('p', { class: 'empty' }, 'No EDNA unit to test.'),
    );
  });

  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'EDNA test' },
    h('h2', null, 'EDNA test'),
    h('p', { class: 'hint' }, 'Tick the units to test, of any sides; their dice are drawn in the order listed. A total above a unit’s EDNA takes the excess off; at 0 it is ineffective.'),
    dice.el,
    h('div', { class: 'sides-grid' }, bySide),
    h('details', { class: 'options' }, h('summary', null, "Options (the campaign's unless changed)"), h('div', { class: 'row' }, field('Dice per test', nDice), field('Faces', faces))),
    field('Note (optional)', note),
    actions(h('button', { type: 'submit', class: 'primary', testid: 'combat-submit' }, 'Test')),
  );

  // The chances of the test as the form stands (no die needed).
  form.append(oddsPanel({ system: 'edna', request: () => body(true), render: renderEdna }).el);

  function body(forOdds = false) {
    const picked = rows.filter((r) => r.pick.checked);
    if (!picked.length) throw new FormError('Tick at least one unit to test.', rows[0] ? rows[0].pick : null);
    const req = { units: [] };
    picked.forEach((r, i) => {
      const u = { unit: r.unit.id };
      fields.set(`units[${i}]`, r.pick);
      fields.set(`units[${i}].unit`, r.pick);
      fields.set(`units[${i}].modifier`, r.modifier);
      const m = intValue(r.modifier, `${r.unit.name}'s modifier`);
      if (m) u.modifier = m;
      if (entered && !forOdds) {
        fields.set(`units[${i}].dice`, r.dieInputs[0]);
        u.dice = r.dieInputs.map((d, k) => {
          const v = intValue(d, `${r.unit.name}'s die ${k + 1}`);
          if (v === undefined) throw new FormError(`Type ${r.unit.name}'s die ${k + 1}.`, d);
          return v;
        });
      }
      req.units.push(u);
    });
    const o = {};
    const nd = intValue(nDice, 'Dice per test');
    const nf = intValue(faces, 'Faces');
    if (nd !== undefined && nd !== base.dice) o.dice = nd;
    if (nf !== undefined && nf !== base.faces) o.faces = nf;
    if (Object.keys(o).length) req.options = o;
    if (forOdds) return req;
    req.dice = dice.request();
    const n = textValue(note);
    if (n) req.note = n;
    return req;
  }

  onSubmit(form, fields, async () => {
    const { data, replayed } = await ctx.roll(roller, cpath('/combats/edna'), body());
    ctx.showResult(data, replayed);
  });
  return form;
}
