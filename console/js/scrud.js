// The SCRUD combat form: units of exactly two sides, each unit's reserve
// and modifier for this combat, the options, and a die per unit when the
// dice are entered.

import { h, field, select, numberInput, checkbox, signed } from './dom.js';
import { createRoller } from './api.js';
import { session, sides, cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue } from './forms.js';
import { diceControls, dieInput } from './dice.js';
import { oddsPanel, renderScrud } from './odds.js';

export function scrudForm(ctx) {
  const fields = new FieldMap();
  const roller = createRoller();
  const units = ctx.units.filter((u) => u.scrud && !u.eliminated);
  let entered = false;
  const rows = []; // one per unit: {unit, side, pick, reserve, modifier, die, extra}

  const sideBoxes = sides().map((side) => {
    const mine = units.filter((u) => u.side.id === side.id);
    const sideMod = numberInput({ min: -100, max: 100, value: 0, testid: 'scrud-side-modifier', 'data-side': side.name });
    const list = h('ul', { class: 'unit-picks' });
    for (const u of mine) {
      const pick = checkbox(
        h('span', null, u.name, ' ', h('small', null, `modifier ${signed(u.scrud.modifier)}, d${u.scrud.faces}`)),
        { testid: 'scrud-unit', 'data-side': side.name, 'data-unit-name': u.name },
      );
      const reserve = checkbox('Reserve', { testid: 'scrud-reserve', 'data-unit-name': u.name });
      const modifier = numberInput({ min: -100, max: 100, placeholder: '0', class: 'small', testid: 'scrud-modifier', 'data-unit-name': u.name });
      const die = dieInput(u.scrud.faces, { 'data-unit-name': u.name, 'aria-label': `${u.name}'s die (d${u.scrud.faces})` });
      const dieField = field(`Die (d${u.scrud.faces})`, die, null, 'die-field');
      const extra = h('div', { class: 'unit-extra', hidden: true }, reserve.el, field('Modifier', modifier, null, 'inline'), dieField);
      const row = { unit: u, side, pick: pick.input, reserve: reserve.input, modifier, die, dieField, extra };
      rows.push(row);
      pick.input.addEventListener('change', () => update(row));
      list.append(h('li', { class: 'unit-pick' }, pick.el, extra));
    }
    return h(
      'fieldset',
      { class: 'side-pick', 'data-side': side.name },
      h('legend', null, side.name),
      mine.length ? [list, field('Side modifier (this combat)', sideMod, null, 'inline')] : h('p', { class: 'empty' }, 'No SCRUD unit in play.'),
    );
  });

  function update(row) {
    row.extra.hidden = !row.pick.checked;
    row.dieField.hidden = !entered;
    row.die.required = entered;
  }

  const options = optionsFields(fields);
  const note = h('input', { type: 'text', maxlength: 500, testid: 'combat-note' });
  fields.set('note', note);
  const dice = diceControls({
    fields,
    enteredHint: "Type each unit's die next to it.",
    onSourceChange(source) {
      entered = source === 'entered';
      rows.forEach(update);
    },
  });
  const submit = h('button', { type: 'submit', class: 'primary', testid: 'combat-submit' }, 'Resolve the combat');

  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'SCRUD combat' },
    h('h2', null, 'SCRUD combat'),
    h('p', { class: 'hint' }, 'Tick the units of exactly two sides. Each rolls one die; order breaks ties. Reserves add their pips to the line instead of fighting.'),
    dice.el,
    h('div', { class: 'sides-grid' }, sideBoxes),
    options.el,
    field('Note (optional)', note),
    actions(submit),
  );
  // The chances of the combat as the form stands (no die needed).
  form.append(oddsPanel({ system: 'scrud', request: () => body(true), render: renderScrud }).el);

  function body(forOdds = false) {
    const picked = sides().filter((s) => rows.some((r) => r.side.id === s.id && r.pick.checked));
    if (picked.length !== 2) {
      const first = rows[0] ? rows[0].pick : submit;
      const ticked = picked.length === 0 ? 'none is ticked' : picked.length === 1 ? 'units of one side are ticked' : `units of ${picked.length} sides are ticked`;
      throw new FormError(`Tick units of exactly two sides (${ticked}).`, first);
    }
    const req = { sides: [] };
    picked.forEach((side, k) => {
      const box = sideBoxes.find((b) => b.dataset.side === side.name);
      const sideMod = box.querySelector('[data-testid="scrud-side-modifier"]');
      const s = { side: side.id, units: [] };
      const mod = intValue(sideMod, `${side.name}'s modifier`);
      if (mod) s.modifier = mod;
      fields.set(`sides[${k}].side`, sideMod);
      fields.set(`sides[${k}].modifier`, sideMod);
      const mine = rows.filter((r) => r.side.id === side.id && r.pick.checked);
      fields.set(`sides[${k}].units`, mine[0].pick);
      mine.forEach((r, j) => {
        const u = { unit: r.unit.id };
        const base = `sides[${k}].units[${j}]`;
        fields.set(`${base}.unit`, r.pick);
        fields.set(`${base}.reserve`, r.reserve);
        fields.set(`${base}.modifier`, r.modifier);
        fields.set(`${base}.die`, r.die);
        fields.set(base, r.pick);
        if (r.reserve.checked) u.reserve = true;
        const m = intValue(r.modifier, `${r.unit.name}'s modifier`);
        if (m) u.modifier = m;
        if (entered && !forOdds) {
          const d = intValue(r.die, `${r.unit.name}'s die`);
          if (d === undefined) throw new FormError(`Type ${r.unit.name}'s die.`, r.die);
          u.die = d;
        }
        s.units.push(u);
      });
      req.sides.push(s);
    });
    const opts = options.value();
    if (opts) req.options = opts;
    if (forOdds) return req;
    req.dice = dice.request();
    const n = textValue(note);
    if (n) req.note = n;
    return req;
  }

  onSubmit(form, fields, async () => {
    const { data, replayed } = await ctx.roll(roller, cpath('/combats/scrud'), body());
    ctx.showResult(data, replayed);
  });
  return form;
}

/**
 * SCRUD options, prefilled with the campaign's; only those changed are
 * sent (they apply to this combat only).
 */
function optionsFields(fields) {
  const base = session.campaign.options.scrud;
  const capKind = select(
    [
      { value: 'faces', label: "the unit's die faces" },
      { value: 'fixed', label: 'a fixed number' },
      { value: 'none', label: 'none' },
    ],
    { testid: 'scrud-cap-kind' },
    base.cap === 'faces' ? 'faces' : base.cap === null ? 'none' : 'fixed',
  );
  const capValue = numberInput({ min: -100, max: 1100, value: typeof base.cap === 'number' ? base.cap : 6 });
  const capField = field('Fixed cap', capValue);
  capField.hidden = capKind.value !== 'fixed';
  capKind.addEventListener('change', () => {
    capField.hidden = capKind.value !== 'fixed';
  });
  const floor = numberInput({ min: -100, max: 100, value: base.floor ?? '' });
  const extra = select(
    [
      { value: 'beat_lowest', label: 'beat the lowest' },
      { value: 'ignore', label: 'ignored' },
      { value: 'half', label: 'defeat on more than half the faces' },
    ],
    {},
    base.extra_dice,
  );
  const attrition = checkbox('Attrition: defeats and heavy fighting leave lasting penalties', { checked: base.attrition });
  const maxPen = numberInput({ min: 0, max: 2, value: base.max_penalty_per_combat });
  const elimBelow = numberInput({ min: -100, max: 100, value: base.eliminate_below });
  const perElim = numberInput({ min: 0, max: 100, value: base.defeats_per_elimination });
  fields.set('options.cap', capKind);
  fields.set('options.floor', floor);
  fields.set('options.extra_dice', extra);
  fields.set('options.attrition', attrition.input);
  fields.set('options.max_penalty_per_combat', maxPen);
  fields.set('options.eliminate_below', elimBelow);
  fields.set('options.defeats_per_elimination', perElim);
  fields.set('options', capKind);

  const el = h(
    'details',
    { class: 'options' },
    h('summary', null, "Options (the campaign's unless changed, for this combat only)"),
    h(
      'div',
      { class: 'row' },
      field('Highest score (cap)', capKind),
      capField,
      field('Lowest score (floor, empty: none)', floor),
      field('Unpaired dice', extra),
    ),
    attrition.el,
    h(
      'div',
      { class: 'row' },
      field('Most penalty per combat', maxPen),
      field('Eliminated below', elimBelow),
      field('Defeats per extra elimination (0: off)', perElim),
    ),
  );

  return {
    el,
    value() {
      const o = {};
      const cap = capKind.value === 'faces' ? 'faces' : capKind.value === 'none' ? null : intValue(capValue, 'Fixed cap') ?? 6;
      if (cap !== base.cap) o.cap = cap;
      const fl = intValue(floor, 'Floor') ?? null;
      if (fl !== base.floor) o.floor = fl;
      if (extra.value !== base.extra_dice) o.extra_dice = extra.value;
      if (attrition.input.checked !== base.attrition) o.attrition = attrition.input.checked;
      for (const [k, input, label] of [
        ['max_penalty_per_combat', maxPen, 'Most penalty per combat'],
        ['eliminate_below', elimBelow, 'Eliminated below'],
        ['defeats_per_elimination', perElim, 'Defeats per extra elimination'],
      ]) {
        const v = intValue(input, label);
        if (v !== undefined && v !== base[k]) o[k] = v;
      }
      return Object.keys(o).length ? o : null;
    },
  };
}
