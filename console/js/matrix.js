// Creating a Matrix battle: two armies (units of two sides), the matrix
// arguments, the kind of battle, and its line of combats. Nothing is
// rolled here: the battle is then fought one action at a time.

import { h, replace, field, select, numberInput, checkbox, signed } from './dom.js';
import { getAll, createRoller } from './api.js';
import { sides, cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue } from './forms.js';
import { diceControls } from './dice.js';

const ARMIES = ['attacker', 'defender'];

export function matrixForm(ctx) {
  const fields = new FieldMap();
  const roller = createRoller();
  const units = ctx.units.filter((u) => u.matrix && !u.eliminated);
  const sideOpts = sides().map((s) => ({ value: s.id, label: s.name }));

  const turn = numberInput({ min: 1, max: 1000000, value: 1, testid: 'battle-turn', required: true });
  const kind = select(
    [
      { value: 'open', label: 'Open battle' },
      { value: 'skirmish', label: 'Skirmish (one combat, up to two reserves each)' },
    ],
    { testid: 'matrix-kind' },
    'open',
  );
  const ambush = select(
    [
      { value: '', label: 'No ambush' },
      { value: 'attacker', label: 'The attacker ambushes (+1)' },
      { value: 'defender', label: 'The defender ambushes (+1)' },
    ],
    { testid: 'matrix-ambush' },
  );
  const basis = select(
    [
      { value: 'battle', label: "Both armies' units that fought (default)" },
      { value: 'winner', label: "The winner's units" },
      { value: 'loser', label: "The loser's units" },
    ],
    {},
    'battle',
  );
  // An open battle may continue a skirmish that escalated.
  const escalatedFrom = select([{ value: '', label: 'none' }], { testid: 'matrix-escalated-from' });
  const escalatedField = field('Continues the escalated skirmish', escalatedFrom, 'Each army must hold every unit the skirmish’s army had.');
  escalatedField.hidden = true;
  getAll(cpath('/battles'))
    .then((items) => {
      const skirmishes = items.filter((b) => b.system === 'matrix' && b.status === 'escalated');
      for (const b of skirmishes) escalatedFrom.append(h('option', { value: b.id }, `${b.id}, turn ${b.turn}${b.note ? `: ${b.note}` : ''}`));
      escalatedField.hidden = !skirmishes.length || kind.value !== 'open';
    })
    .catch(() => {
      /* without the list, no escalation to offer */
    });
  fields.set('escalated_from', escalatedFrom);
  fields.set('turn', turn);
  fields.set('kind', kind);
  fields.set('ambush', ambush);
  fields.set('basis', basis);

  const armies = {};
  ARMIES.forEach((army, i) => {
    const sideSel = select(sideOpts, { testid: `matrix-${army}-side` }, sideOpts[i] && sideOpts[i].value);
    const argument = select(
      [
        { value: '0', label: 'none (0)' },
        { value: '1', label: 'advantaged (+1)' },
        { value: '-1', label: 'disadvantaged (-1)' },
      ],
      { testid: `matrix-${army}-argument` },
      '0',
    );
    const list = h('ul', { class: 'unit-picks' });
    const a = { army, sideSel, argument, list, picks: [] };
    const draw = () => {
      a.picks = units
        .filter((u) => u.side.id === sideSel.value)
        .map((u) => {
          const box = checkbox(h('span', null, u.name, ' ', h('small', null, `quality ${signed(u.matrix.quality)}`)), {
            testid: 'matrix-unit',
            'data-army': army,
            'data-unit-name': u.name,
          });
          box.input.addEventListener('change', drawLine);
          return { unit: u, input: box.input, el: h('li', null, box.el) };
        });
      replace(list, a.picks.length ? a.picks.map((p) => p.el) : h('li', { class: 'empty' }, 'No Matrix unit of this side in play.'));
      drawLine();
    };
    sideSel.addEventListener('change', draw);
    fields.set(`${army}.side`, sideSel);
    fields.set(`${army}.argument`, argument);
    a.draw = draw;
    a.el = h(
      'fieldset',
      { class: 'side-pick' },
      h('legend', null, army === 'attacker' ? 'Attacker' : 'Defender'),
      h('div', { class: 'row' }, field('Side', sideSel), field('Matrix argument', argument)),
      list,
    );
    armies[army] = a;
  });

  const chosen = (army) => armies[army].picks.filter((p) => p.input.checked).map((p) => p.unit);

  // The line: one row per combat, each army's unit (and a second for the larger army).
  const lineBox = h('ol', { class: 'line' });
  const lineNote = h('p', { class: 'hint' });
  let line = []; // [{attacker: [select, select], defender: [select, select], el}]

  function unitSelect(army, value, optional, label) {
    const opts = chosen(army).map((u) => ({ value: u.id, label: u.name }));
    return select(optional ? [{ value: '', label: '—' }, ...opts] : opts, { 'aria-label': label, testid: `line-${army}` }, value);
  }

  function addCombat(aId, dId) {
    const c = line.length;
    const row = {
      attacker: [unitSelect('attacker', aId, false, `Combat ${c + 1}: attacker`), unitSelect('attacker', '', true, `Combat ${c + 1}: second attacker`)],
      defender: [unitSelect('defender', dId, false, `Combat ${c + 1}: defender`), unitSelect('defender', '', true, `Combat ${c + 1}: second defender`)],
    };
    const remove = h('button', { type: 'button', class: 'button-small button-quiet', 'aria-label': `Remove combat ${c + 1}` }, 'Remove');
    remove.addEventListener('click', () => {
      line = line.filter((x) => x !== row);
      row.el.remove();
      describeReserve();
    });
    for (const s of [...row.attacker, ...row.defender]) s.addEventListener('change', describeReserve);
    row.el = h(
      'li',
      { class: 'line-combat' },
      h('span', { class: 'line-side' }, row.attacker[0], ' + ', row.attacker[1]),
      h('span', { class: 'versus' }, 'against'),
      h('span', { class: 'line-side' }, row.defender[0], ' + ', row.defender[1]),
      remove,
    );
    line.push(row);
    lineBox.append(row.el);
  }

  /** The default line: the i-th attacker against the i-th defender. */
  function drawLine() {
    replace(lineBox);
    line = [];
    const a = chosen('attacker');
    const d = chosen('defender');
    const n = kind.value === 'skirmish' ? Math.min(1, a.length, d.length) : Math.min(a.length, d.length);
    for (let i = 0; i < n; i += 1) addCombat(a[i].id, d[i].id);
    describeReserve();
  }

  const inLine = (army) => new Set(line.flatMap((r) => r[army].map((s) => s.value).filter(Boolean)));

  function describeReserve() {
    const parts = ARMIES.map((army) => {
      const used = inLine(army);
      const rest = chosen(army).filter((u) => !used.has(u.id));
      const sel = armies[army].sideSel;
      const name = sel.selectedOptions[0] ? sel.selectedOptions[0].textContent : army;
      return rest.length ? `${name}'s reserve (${army}): ${rest.map((u) => u.name).join(', ')}` : null;
    }).filter(Boolean);
    lineNote.textContent = parts.length
      ? `${parts.join('; ')}. In an open battle only the larger army keeps a reserve; in a skirmish each army may keep up to two.`
      : 'Every unit stands in the line.';
  }

  const addBtn = h('button', { type: 'button', class: 'button-small', testid: 'line-add' }, 'Add a combat');
  addBtn.addEventListener('click', () => {
    const a = chosen('attacker');
    const d = chosen('defender');
    if (a.length && d.length) addCombat(a[0].id, d[0].id);
  });
  kind.addEventListener('change', () => {
    escalatedField.hidden = escalatedFrom.options.length < 2 || kind.value !== 'open';
    drawLine();
  });
  fields.set('line', lineBox);

  const note = h('input', { type: 'text', maxlength: 500, testid: 'combat-note' });
  fields.set('note', note);
  const dice = diceControls({ fields, battle: true });

  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'Matrix battle' },
    h('h2', null, 'Matrix battle'),
    h('p', { class: 'hint' }, 'Pick the armies and their line. Nothing is rolled yet: the battle opens, and its combats are rolled, reinforced and accepted one action at a time.'),
    h('div', { class: 'row' }, field('Turn', turn), field('Kind', kind), field('Ambush', ambush)),
    h('p', { class: 'hint' }, 'The turn is the campaign turn: exhaustion from a battle of the turn before applies.'),
    field('Whose units the army state counts', basis, null, 'wide'),
    escalatedField,
    h('div', { class: 'sides-grid' }, armies.attacker.el, armies.defender.el),
    h('fieldset', null, h('legend', null, 'The line'), h('p', { class: 'hint' }, 'One unit against one, or two against one for the larger army. Every unit of the smaller army stands in the line.'), lineBox, h('div', { class: 'actions' }, addBtn), lineNote),
    field('Note (optional)', note),
    dice.el,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'combat-submit' }, 'Create the battle')),
  );

  armies.attacker.draw();
  armies.defender.draw();

  function body() {
    const t = intValue(turn, 'Turn');
    if (t === undefined) throw new FormError('Give the turn.', turn);
    const req = { system: 'matrix', turn: t, kind: kind.value };
    if (ambush.value) req.ambush = ambush.value;
    if (basis.value !== 'battle') req.basis = basis.value;
    if (armies.attacker.sideSel.value === armies.defender.sideSel.value) {
      throw new FormError('The two armies must be of two sides.', armies.defender.sideSel);
    }
    for (const army of ARMIES) {
      const a = armies[army];
      const picked = a.picks.filter((p) => p.input.checked);
      if (!picked.length) throw new FormError(`Tick the ${army}'s units.`, a.sideSel);
      const arm = { side: a.sideSel.value, units: picked.map((p) => p.unit.id) };
      picked.forEach((p, i) => fields.set(`${army}.units[${i}]`, p.input));
      fields.set(`${army}.units`, picked[0].input);
      fields.set(army, a.sideSel);
      if (a.argument.value !== '0') arm.argument = Number(a.argument.value);
      if (kind.value === 'skirmish') {
        const used = inLine(army);
        arm.reserve = arm.units.filter((id) => !used.has(id));
      }
      req[army] = arm;
    }
    if (!line.length) throw new FormError('The line needs at least one combat.', addBtn);
    req.line = line.map((row, c) => {
      const pair = {};
      for (const army of ARMIES) {
        const chosenIds = row[army].map((s) => s.value).filter(Boolean);
        row[army].forEach((s, k) => fields.set(`line[${c}].${army}[${k}]`, s));
        fields.set(`line[${c}].${army}`, row[army][0]);
        pair[army] = chosenIds;
      }
      fields.set(`line[${c}]`, row.attacker[0]);
      return pair;
    });
    if (kind.value === 'open' && escalatedFrom.value) req.escalated_from = escalatedFrom.value;
    req.dice = dice.request();
    const n = textValue(note);
    if (n) req.note = n;
    return req;
  }

  onSubmit(form, fields, async () => {
    const { data } = await ctx.roll(roller, cpath('/battles'), body());
    ctx.openBattle(data);
  });
  return form;
}
