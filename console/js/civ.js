// Creating a Civilization battle: two armies of pieces (units of two
// sides), the era, the settlement, each army's technologies. Nothing is
// rolled here: the battle is then fought one phase at a time.

import { h, replace, field, select, numberInput, checkbox, signed } from './dom.js';
import { createRoller } from './api.js';
import { sides, cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue } from './forms.js';
import { diceControls } from './dice.js';
import { ERAS } from './format.js';

const ARMIES = ['attacker', 'defender'];

export function civForm(ctx) {
  const fields = new FieldMap();
  const roller = createRoller();
  const units = ctx.units.filter((u) => u.civ && !u.eliminated);
  const sideOpts = sides().map((s) => ({ value: s.id, label: s.name }));

  const turn = numberInput({ min: 1, max: 1000000, value: 1, testid: 'battle-turn', required: true });
  const era = select([1, 2, 3, 4].map((e) => ({ value: e, label: `${e}: ${ERAS[e]}` })), { testid: 'civ-era' }, 1);
  const settlement = checkbox('The defender holds a settlement', { testid: 'civ-settlement' });
  const greatWall = checkbox('…with the Great Wall (2 per piece in the ancient era)');
  fields.set('turn', turn);
  fields.set('current_era', era);
  fields.set('settlement', settlement.input);
  fields.set('great_wall', greatWall.input);

  const armies = {};
  ARMIES.forEach((army, i) => {
    const sideSel = select(sideOpts, { testid: `civ-${army}-side` }, sideOpts[i] && sideOpts[i].value);
    const tech = numberInput({ min: 0, max: 100, value: 0, testid: `civ-${army}-technologies` });
    const list = h('ul', { class: 'unit-picks' });
    const a = { sideSel, tech, picks: [] };
    const draw = () => {
      a.picks = units
        .filter((u) => u.side.id === sideSel.value)
        .map((u) => {
          const c = u.civ;
          const box = checkbox(
            h('span', null, u.name, ' ', h('small', null, `${c.class}, era ${c.era}, bonus ${signed(c.bonus)}${c.class === 'aircraft' ? `, dice ×${c.dice_multiplier}` : ''}`)),
            { testid: 'civ-unit', 'data-army': army, 'data-unit-name': u.name, checked: true },
          );
          return { unit: u, input: box.input, el: h('li', null, box.el) };
        });
      replace(list, a.picks.length ? a.picks.map((p) => p.el) : h('li', { class: 'empty' }, 'No Civilization piece of this side in play.'));
    };
    sideSel.addEventListener('change', draw);
    draw();
    fields.set(`${army}.side`, sideSel);
    fields.set(`${army}.technologies`, tech);
    fields.set(army, sideSel);
    a.el = h(
      'fieldset',
      { class: 'side-pick' },
      h('legend', null, army === 'attacker' ? 'Attacker' : 'Defender'),
      h('div', { class: 'row' }, field('Side', sideSel), field('Technologies', tech)),
      h('p', { class: 'hint' }, 'Pieces, in the order the army lists them (its default wave and its aircraft order):'),
      list,
    );
    armies[army] = a;
  });

  const note = h('input', { type: 'text', maxlength: 500, testid: 'combat-note' });
  fields.set('note', note);
  const dice = diceControls({ fields, battle: true });

  const form = h(
    'form',
    { class: 'card', novalidate: true, 'aria-label': 'Civilization battle' },
    h('h2', null, 'Civilization battle'),
    h('p', { class: 'hint' }, 'Pick the armies. Nothing is rolled yet: the battle opens, and it is fought one phase at a time, the larger army picking each wave.'),
    h('div', { class: 'row' }, field('Turn', turn), field('Current era', era)),
    h('div', { class: 'checks' }, settlement.el, greatWall.el),
    h('div', { class: 'sides-grid' }, armies.attacker.el, armies.defender.el),
    field('Note (optional)', note),
    dice.el,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'combat-submit' }, 'Create the battle')),
  );

  function body() {
    const t = intValue(turn, 'Turn');
    if (t === undefined) throw new FormError('Give the turn.', turn);
    const req = { system: 'civ', turn: t, current_era: Number(era.value) };
    if (settlement.input.checked) req.settlement = true;
    if (greatWall.input.checked) req.great_wall = true;
    if (armies.attacker.sideSel.value === armies.defender.sideSel.value) {
      throw new FormError('The two armies must be of two sides.', armies.defender.sideSel);
    }
    for (const army of ARMIES) {
      const a = armies[army];
      const picked = a.picks.filter((p) => p.input.checked);
      if (!picked.length) throw new FormError(`Tick the ${army}'s pieces.`, a.sideSel);
      picked.forEach((p, i) => fields.set(`${army}.units[${i}]`, p.input));
      fields.set(`${army}.units`, picked[0].input);
      const arm = { side: a.sideSel.value, units: picked.map((p) => p.unit.id) };
      const tech = intValue(a.tech, 'Technologies');
      if (tech) arm.technologies = tech;
      req[army] = arm;
    }
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
