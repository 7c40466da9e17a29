// #/units: the campaign's units with filters; the umpire adds sides and units.

import { h, replace, field, select, numberInput, checkbox, table, announce } from './dom.js';
import { secretLine, downloadSecretsButton, fileSlug } from './secrets.js';
import { getAll, sendJSON } from './api.js';
import { session, cpath, isUmpire, sides, refreshCampaign } from './session.js';
import { FieldMap, runForm, actions, errorBox, intValue, textValue, FormError } from './forms.js';
import { systemLines, statusText, systemTitle } from './format.js';

// The filters stay as they were set while the tab is open.
const filters = { side: '', system: '', eliminated: '' };

export async function renderUnits(view) {
  // A side filter from another campaign (signed out, then in elsewhere) goes.
  if (filters.side && !sides().some((s) => s.name === filters.side)) filters.side = '';
  view.append(h('h1', null, 'Units'));
  const sidesArea = h('section', { class: 'sides', 'aria-label': 'Sides' });
  const listArea = h('div', { class: 'units-list' });
  const filtersArea = h('div', null, buildFilters(() => loadList(listArea)));
  view.append(sidesArea, filtersArea, listArea);
  if (isUmpire()) {
    view.append(
      h(
        'div',
        { class: 'two-col' },
        buildSideForm(() => {
          // A new side: in the filters, the unit form and the list of sides.
          replace(filtersArea, buildFilters(() => loadList(listArea)));
          rebuildUnitSideSelect(view);
          loadSides(sidesArea);
        }),
        buildUnitForm(() => loadList(listArea)),
      ),
    );
  }
  await Promise.all([loadSides(sidesArea), loadList(listArea)]);
}

/** The campaign's sides, with a Matrix exhaustion still due. */
async function loadSides(area) {
  try {
    const items = await getAll(cpath('/sides'));
    replace(
      area,
      h(
        'p',
        { class: 'side-list' },
        h('strong', null, `Sides (${items.length}): `),
        items.map((s, i) => [
          i ? ', ' : '',
          h(
            'span',
            { testid: 'side-row', 'data-side-name': s.name },
            s.name,
            s.exhausted_turn ? ` (fights exhausted in turn ${s.exhausted_turn})` : '',
          ),
        ]),
      ),
    );
  } catch (err) {
    replace(area, errorBox(err));
  }
}

function buildFilters(onChange) {
  const sideSel = select(
    [{ value: '', label: 'All sides' }, ...sides().map((s) => ({ value: s.name, label: s.name }))],
    { testid: 'filter-side' },
    filters.side,
  );
  const sysSel = select(
    [{ value: '', label: 'Any system' }, ...['scrud', 'edna', 'scs', 'matrix', 'civ'].map((s) => ({ value: s, label: systemTitle(s) }))],
    { testid: 'filter-system' },
    filters.system,
  );
  const elimSel = select(
    [
      { value: '', label: 'In play and eliminated' },
      { value: 'false', label: 'In play' },
      { value: 'true', label: 'Eliminated' },
    ],
    { testid: 'filter-eliminated' },
    filters.eliminated,
  );
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter the units' },
    field('Side', sideSel),
    field('System', sysSel),
    field('Status', elimSel),
  );
  const changed = () => {
    filters.side = sideSel.value;
    filters.system = sysSel.value;
    filters.eliminated = elimSel.value;
    onChange();
  };
  for (const s of [sideSel, sysSel, elimSel]) s.addEventListener('change', changed);
  form.addEventListener('submit', (ev) => ev.preventDefault());
  return form;
}

async function loadList(area) {
  area.setAttribute('aria-busy', 'true');
  try {
    const items = await getAll(cpath('/units'), filters);
    if (!items.length) {
      replace(area, h('p', { class: 'empty', testid: 'units-empty' }, 'No unit matches.'));
      return;
    }
    const rows = items.map((u) => {
      const href = `#/units/${encodeURIComponent(u.id)}`;
      const tr = h(
        'tr',
        { testid: 'unit-row', 'data-unit-name': u.name, 'data-unit-id': u.id, class: ['clickable', u.eliminated && 'eliminated'] },
        h('th', { scope: 'row' }, h('a', { href }, u.name)),
        h('td', null, u.side.name),
        h(
          'td',
          null,
          h(
            'ul',
            { class: 'plain' },
            systemLines(u).map(([s, text]) => h('li', null, h('span', { class: 'sys' }, systemTitle(s)), ' ', text)),
          ),
        ),
        h('td', null, statusText(u)),
      );
      // The whole row opens the unit; the link keeps it keyboard-reachable.
      tr.addEventListener('click', (ev) => {
        if (ev.target.closest('a')) return;
        location.hash = href;
      });
      return tr;
    });
    replace(
      area,
      h('p', { class: 'count' }, `${items.length} unit${items.length === 1 ? '' : 's'}`),
      table(['Unit', 'Side', 'State', 'Status'], rows, { class: 'units' }),
    );
  } catch (err) {
    replace(area, errorBox(err));
  } finally {
    area.removeAttribute('aria-busy');
  }
}

/** The umpire's "Add a side" form; the player token is shown once. */
function buildSideForm(onCreated) {
  const name = h('input', { type: 'text', testid: 'side-name', maxlength: 64, required: true, autocomplete: 'off' });
  const out = h('div', { class: 'token-out' });
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('h2', null, 'Add a side'),
    field('Side name', name),
    actions(h('button', { type: 'submit', testid: 'side-create' }, 'Add side')),
    out,
  );
  const fields = new FieldMap();
  fields.set('name', name);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(
      form,
      async () => {
        const value = textValue(name);
        if (!value) throw new FormError('Name the side.', name);
        const side = await sendJSON('POST', cpath('/sides'), { name: value });
        name.value = '';
        await refreshCampaign();
        replace(out, tokenNotice(side));
        announce(`Side ${side.name} added.`);
        onCreated();
      },
      fields,
    );
  });
  return form;
}

function tokenNotice(side) {
  const file = `${fileSlug(session.who.campaign_name)}-${fileSlug(side.name)}-token.txt`;
  const text = () => [`umpire campaign: ${session.who.campaign_name} (${session.who.campaign_id})`, `console: ${location.origin}/`, '', `player token of ${side.name}:`, side.player_token, ''].join('\n');
  return h(
    'div',
    { class: 'notice', role: 'status', testid: 'side-created' },
    h('p', null, 'Side ', h('strong', null, side.name), ' added. Its player token, ', h('strong', null, 'shown only this once'), ' (the service keeps a hash):'),
    secretLine(`${side.name}'s token`, side.player_token, { testid: 'player-token' }),
    h('div', { class: 'actions' }, downloadSecretsButton('Download it (text file)', file, text)),
  );
}

function rebuildUnitSideSelect(view) {
  const sel = view.querySelector('[data-testid="unit-side"]');
  if (!sel) return;
  const keep = sel.value;
  replace(sel, ...sides().map((s) => h('option', { value: s.name }, s.name)));
  if (keep) sel.value = keep;
}

/**
 * The umpire's "Add a unit" form, with a section per system. After each
 * unit the form is drawn again from scratch (every value back to its
 * default, so the next unit never inherits the last one's bonus), keeping
 * only the side chosen, with the notice of the unit added at its top,
 * next to the name field that gets the focus.
 */
function buildUnitForm(onCreated, { keepSide = null, added = null } = {}) {
  const fields = new FieldMap();
  const name = h('input', { type: 'text', testid: 'unit-name', maxlength: 64, required: true, autocomplete: 'off' });
  const side = select(
    sides().map((s) => ({ value: s.name, label: s.name })),
    { testid: 'unit-side', required: true },
    keepSide && sides().some((s) => s.name === keepSide) ? keepSide : undefined,
  );
  const note = h('input', { type: 'text', testid: 'unit-note', maxlength: 500 });
  fields.set('name', name);
  fields.set('side', side);
  fields.set('note', note);

  const sections = systemSections(fields);
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('h2', null, 'Add a unit'),
    added
      ? h(
          'p',
          { class: 'notice', role: 'status', testid: 'unit-created' },
          'Unit ',
          h('a', { href: `#/units/${encodeURIComponent(added.id)}` }, added.name),
          ` added to ${added.side.name}. Add the next one:`,
        )
      : null,
    field('Unit name', name),
    field('Side', side),
    h(
      'fieldset',
      { class: 'systems' },
      h('legend', null, 'Systems it carries'),
      h('p', { class: 'hint' }, 'Tick none for SCRUD, EDNA and Matrix with their defaults.'),
      sections.map((s) => s.el),
    ),
    field('Note (for its history)', note),
    actions(h('button', { type: 'submit', class: 'primary', testid: 'unit-create' }, 'Add unit')),
  );

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(
      form,
      async () => {
        const body = { name: textValue(name), side: side.value };
        if (!body.name) throw new FormError('Name the unit.', name);
        if (!body.side) throw new FormError('Add a side first.', side);
        for (const s of sections) if (s.on()) body[s.key] = s.value();
        const n = textValue(note);
        if (n) body.note = n;
        const unit = await sendJSON('POST', cpath('/units'), body);
        announce(`Unit ${unit.name} added to ${unit.side.name}.`);
        const fresh = buildUnitForm(onCreated, { keepSide: side.value, added: unit });
        form.replaceWith(fresh);
        const freshName = fresh.querySelector('[data-testid="unit-name"]');
        fresh.querySelector('[data-testid="unit-created"]').scrollIntoView({ block: 'center' });
        freshName.focus({ preventScroll: true });
        onCreated();
      },
      fields,
    );
  });
  return form;
}

/**
 * The optional system sections of a new unit: a checkbox each, revealing
 * its fields. Each answers {key, el, on(), value()}.
 */
function systemSections(fields) {
  const campaignStart = session.campaign ? session.campaign.options.edna.start : 8;

  const scrudQuality = numberInput({ min: -100, max: 100, value: 0, testid: 'unit-scrud-quality' });
  const scrudFaces = numberInput({ min: 2, max: 1000, value: 6, testid: 'unit-scrud-faces' });
  fields.set('scrud.quality', scrudQuality);
  fields.set('scrud.faces', scrudFaces);

  const ednaStart = numberInput({ min: 1, max: 100, placeholder: String(campaignStart), testid: 'unit-edna-start' });
  fields.set('edna.start', ednaStart);

  const scs = {
    attack: numberInput({ min: 0, max: 99, value: 4, testid: 'unit-scs-attack' }),
    defense: numberInput({ min: 0, max: 99, value: 4, testid: 'unit-scs-defense' }),
    movement: numberInput({ min: 0, max: 99, value: 0 }),
    hasReduced: checkbox('It has a reduced side (two steps or more)', { testid: 'unit-scs-has-reduced' }),
    rAttack: numberInput({ min: 0, max: 99, value: 2, testid: 'unit-scs-reduced-attack' }),
    rDefense: numberInput({ min: 0, max: 99, value: 2, testid: 'unit-scs-reduced-defense' }),
    rMovement: numberInput({ min: 0, max: 99, value: 0 }),
    steps: numberInput({ min: 1, max: 20, placeholder: 'default' }),
    exploit: checkbox('Exploit capable'),
    oos: checkbox('Out of supply'),
  };
  for (const [k, el] of [['attack', scs.attack], ['defense', scs.defense], ['movement', scs.movement], ['steps', scs.steps]]) {
    fields.set(`scs.${k}`, el);
  }
  fields.set('scs.reduced', scs.hasReduced.input);
  fields.set('scs.reduced.attack', scs.rAttack);
  fields.set('scs.reduced.defense', scs.rDefense);
  fields.set('scs.reduced.movement', scs.rMovement);
  const reducedBox = h(
    'div',
    { class: 'row', hidden: true },
    field('Reduced attack (empty: none printed)', scs.rAttack),
    field('Reduced defense', scs.rDefense),
    field('Reduced movement', scs.rMovement),
  );
  scs.hasReduced.input.addEventListener('change', () => {
    reducedBox.hidden = !scs.hasReduced.input.checked;
  });

  const matrixQuality = numberInput({ min: -3, max: 3, value: 0, testid: 'unit-matrix-quality' });
  fields.set('matrix.quality', matrixQuality);

  const civClass = select(['infantry', 'cavalry', 'artillery', 'aircraft', 'other'], { testid: 'unit-civ-class' });
  const civEra = select([1, 2, 3, 4].map((e) => ({ value: e, label: `${e}` })), { testid: 'unit-civ-era' });
  const civBonus = numberInput({ min: -20, max: 20, value: 0, testid: 'unit-civ-bonus' });
  const civMult = numberInput({ min: 1, max: 10, value: 1 });
  fields.set('civ.class', civClass);
  fields.set('civ.era', civEra);
  fields.set('civ.bonus', civBonus);
  fields.set('civ.dice_multiplier', civMult);
  const multField = field('Dice multiplier (aircraft)', civMult);
  multField.hidden = true;
  civClass.addEventListener('change', () => {
    multField.hidden = civClass.value !== 'aircraft';
  });

  const attackOrNull = (input, label) => {
    const v = intValue(input, label);
    return v === undefined ? null : v;
  };

  const defs = [
    {
      key: 'scrud',
      label: 'SCRUD',
      body: [h('div', { class: 'row' }, field('Quality', scrudQuality), field('Die faces', scrudFaces))],
      value: () => ({ quality: intValue(scrudQuality, 'Quality') ?? 0, faces: intValue(scrudFaces, 'Die faces') ?? 6 }),
    },
    {
      key: 'edna',
      label: 'EDNA',
      body: [field('Starting EDNA', ednaStart, `Empty: the campaign's ${campaignStart}.`)],
      value: () => {
        const start = intValue(ednaStart, 'Starting EDNA');
        return start === undefined ? {} : { start };
      },
    },
    {
      key: 'scs',
      label: 'SCS counter',
      body: [
        h('div', { class: 'row' }, field('Attack (empty: none printed)', scs.attack), field('Defense', scs.defense), field('Movement', scs.movement)),
        scs.hasReduced.el,
        reducedBox,
        h('div', { class: 'row' }, field('Steps', scs.steps, 'Empty: 2 with a reduced side, else 1.'), scs.exploit.el, scs.oos.el),
      ],
      value: () => {
        const c = {
          attack: attackOrNull(scs.attack, 'Attack'),
          defense: intValue(scs.defense, 'Defense') ?? 0,
          movement: intValue(scs.movement, 'Movement') ?? 0,
        };
        if (scs.hasReduced.input.checked) {
          c.reduced = {
            attack: attackOrNull(scs.rAttack, 'Reduced attack'),
            defense: intValue(scs.rDefense, 'Reduced defense') ?? 0,
            movement: intValue(scs.rMovement, 'Reduced movement') ?? 0,
          };
        }
        const steps = intValue(scs.steps, 'Steps');
        if (steps !== undefined) c.steps = steps;
        if (scs.exploit.input.checked) c.exploit_capable = true;
        if (scs.oos.input.checked) c.out_of_supply = true;
        return c;
      },
    },
    {
      key: 'matrix',
      label: 'Matrix',
      body: [field('Quality (-3 to 3)', matrixQuality)],
      value: () => ({ quality: intValue(matrixQuality, 'Quality') ?? 0 }),
    },
    {
      key: 'civ',
      label: 'Civilization piece',
      body: [h('div', { class: 'row' }, field('Class', civClass), field('Era', civEra, '1 ancient, 2 medieval, 3 gunpowder, 4 modern'), field('Bonus', civBonus), multField)],
      value: () => {
        const c = { class: civClass.value, era: Number(civEra.value), bonus: intValue(civBonus, 'Bonus') ?? 0 };
        if (civClass.value === 'aircraft') c.dice_multiplier = intValue(civMult, 'Dice multiplier') ?? 1;
        return c;
      },
    },
  ];

  return defs.map((d) => {
    const box = checkbox(d.label, { testid: `unit-sys-${d.key}` });
    const body = h('div', { class: 'system-fields', hidden: true }, d.body);
    box.input.addEventListener('change', () => {
      body.hidden = !box.input.checked;
    });
    fields.set(d.key, box.input);
    return {
      key: d.key,
      el: h('div', { class: 'system-section' }, box.el, body),
      on: () => box.input.checked,
      value: d.value,
    };
  });
}
