// #/units/<id>: one unit, its state per system, its history a page at a
// time; the umpire corrects it or resupplies it.

import { h, replace, field, select, numberInput, dl, timeEl, announce, signed } from './dom.js';
import { getJSON, sendJSON } from './api.js';
import { cpath, isUmpire, sideName } from './session.js';
import { FieldMap, runForm, actions, errorBox, intValue, textValue, FormError } from './forms.js';
import {
  systemTitle,
  statusText,
  historyResultText,
  changes,
  systemLines,
  scrudText,
  ednaText,
  scsText,
  matrixText,
  civText,
} from './format.js';

export async function renderUnit(view, unitId) {
  let unit;
  try {
    unit = await getJSON(cpath(`/units/${encodeURIComponent(unitId)}`));
  } catch (err) {
    view.append(h('h1', null, 'Unit'), errorBox(err), h('p', null, h('a', { href: '#/units' }, 'Back to the units')));
    return;
  }
  // By id from here on: a correction may rename the unit.
  const path = cpath(`/units/${encodeURIComponent(unit.id)}`);
  // Everything of the unit's page, its history included, is in unit-detail.
  const page = h('div', { class: 'unit-detail', testid: 'unit-detail', 'data-unit-name': unit.name, 'data-unit-id': unit.id });
  const detail = h('section', { class: 'card' });
  const history = h('section', { class: 'history', 'aria-labelledby': 'history-heading' });
  const crumb = h('span', null, unit.name);
  view.append(h('p', { class: 'crumbs' }, h('a', { href: '#/units' }, 'Units'), ' / ', crumb), page);
  page.append(detail);

  const redraw = (u) => {
    unit = u;
    page.dataset.unitName = u.name;
    crumb.textContent = u.name;
    replace(detail, ...unitDetail(u));
  };
  redraw(unit);

  if (isUmpire()) {
    const tools = h('div', { class: 'two-col' });
    const rebuildTools = () => {
      replace(tools, correctionForm(path, unit, after), resupplyForm(path, unit, after));
    };
    // After a correction or resupply: the unit again, its history from the top.
    const after = (u) => {
      redraw(u);
      rebuildTools();
      loadHistory(history, path);
    };
    rebuildTools();
    page.append(tools);
  }
  page.append(history);
  await loadHistory(history, path);
}

function unitDetail(u) {
  const sections = {
    scrud: (s) => dl([['Quality', signed(s.quality)], ['Die', `d${s.faces}`], ['Defeat penalty', s.defeat_penalty], ['Fatigue penalty', s.fatigue_penalty], ['Modifier', signed(s.modifier)]]),
    edna: (e) => dl([['EDNA', e.edna], ['Start', e.start], ['Ineffective', e.ineffective ? 'yes' : 'no']]),
    scs: (c) =>
      dl([
        ['Full side', `${c.attack ?? '–'}-${c.defense}-${c.movement}`],
        ['Reduced side', c.reduced ? `${c.reduced.attack ?? '–'}-${c.reduced.defense}-${c.reduced.movement}` : 'none'],
        ['Steps', `${c.steps_left} left of ${c.steps} (lost ${c.steps_lost})`],
        ['Shows', c.steps_left === 0 ? 'nothing: no step left (eliminated)' : `its ${c.side_shown} side`],
        ['Exploit capable', c.exploit_capable ? 'yes' : 'no'],
        ['Out of supply', c.out_of_supply ? 'yes' : 'no'],
      ]),
    matrix: (m) => dl([['Quality', signed(m.quality)]]),
    civ: (c) => dl([['Class', c.class], ['Era', c.era], ['Bonus', signed(c.bonus)], ['Dice multiplier', c.class === 'aircraft' ? c.dice_multiplier : null]]),
  };
  const eliminatedBy = u.eliminated_by ? h('a', { href: `#/reports/${encodeURIComponent(u.eliminated_by)}` }, 'the combat') : null;
  return [
    h('h1', null, u.name),
    dl([
      ['Side', u.side.name],
      ['Status', h('span', { testid: 'unit-status' }, statusText(u))],
      ['Eliminated by', eliminatedBy],
      ['Id', h('code', null, u.id)],
    ]),
    h(
      'div',
      { class: 'systems-grid' },
      // A unit of another side under fog of war carries no systems.
      (u.systems || []).map((s) => h('section', { class: 'system-card', testid: 'unit-system', 'data-system': s }, h('h2', null, systemTitle(s)), sections[s](u[s]))),
    ),
  ];
}

/** History, newest first by default here: what a player checks after a combat. */
async function loadHistory(section, path) {
  const order = select(
    [
      { value: 'newest', label: 'Newest first' },
      { value: 'oldest', label: 'Oldest first' },
    ],
    { testid: 'history-order' },
    section.dataset.order || 'newest',
  );
  const list = h('ol', { class: 'history-list', testid: 'history' });
  const more = h('button', { type: 'button', testid: 'history-more', hidden: true }, 'Load more');
  const status = h('div');
  replace(
    section,
    h('div', { class: 'section-head' }, h('h2', { id: 'history-heading' }, 'History'), field('Order', order, null, 'inline')),
    list,
    status,
    h('div', { class: 'actions' }, more),
  );
  let cursor = null;
  const page = async () => {
    more.disabled = true;
    try {
      const res = await getJSON(`${path}/history`, { order: order.value, limit: 50, cursor });
      for (const ev of res.items) list.append(historyItem(ev));
      cursor = res.next_cursor;
      more.hidden = !cursor;
      if (!list.children.length) replace(status, h('p', { class: 'empty' }, 'No event yet.'));
    } catch (err) {
      replace(status, errorBox(err));
    } finally {
      more.disabled = false;
    }
  };
  order.addEventListener('change', () => {
    section.dataset.order = order.value;
    loadHistory(section, path);
  });
  more.addEventListener('click', page);
  await page();
}

const KIND_TITLES = { created: 'Created', combat: 'Combat', correction: 'Correction', resupply: 'Resupply' };

function historyItem(ev) {
  const r = ev.result;
  const diff = ev.kind === 'created' ? [] : changes(ev.before, ev.after, sideName);
  const combatLink = ev.combat_id
    ? h('a', { href: `#/reports/${encodeURIComponent(ev.combat_id)}`, testid: 'history-combat-link' }, 'report')
    : null;
  const battleLink =
    r && r.battle_id ? h('a', { href: `#/battles/${encodeURIComponent(r.battle_id)}` }, 'battle') : null;
  return h(
    'li',
    { class: ['history-item', `kind-${ev.kind}`], testid: 'history-item', 'data-kind': ev.kind, 'data-seq': ev.seq },
    h(
      'div',
      { class: 'history-head' },
      h('span', { class: 'seq' }, `#${ev.seq}`),
      ' ',
      h('strong', null, KIND_TITLES[ev.kind] || ev.kind),
      ' ',
      timeEl(ev.at),
      combatLink ? [' · ', combatLink] : null,
      battleLink ? [' · ', battleLink] : null,
    ),
    ev.note ? h('p', { class: 'note' }, `Note: ${ev.note}`) : null,
    r ? h('p', { class: 'result' }, historyResultText(r)) : null,
    ev.rolls && ev.rolls.length
      ? h(
          'p',
          { class: 'dice' },
          'Dice: ',
          ev.rolls.map((x, i) => [i ? '; ' : '', `d${x.faces} ${x.natural}${x.modified !== x.natural ? ` → ${x.modified}` : ''} (${x.source})`]),
        )
      : null,
    ev.kind === 'created'
      ? h('ul', { class: 'plain changes' }, systemLines(ev.after).map(([s, t]) => h('li', null, `${systemTitle(s)}: ${t}`)), h('li', null, `Side: ${sideName(ev.after.side_id)}`))
      : diff.length
        ? h('ul', { class: 'plain changes' }, diff.map((d) => h('li', null, d)))
        : null,
  );
}

/**
 * The umpire's correction: the unit's values prefilled; only what was
 * changed is sent (PATCH), with a note for its history.
 */
function correctionForm(path, unit, done) {
  const fields = new FieldMap();
  const inputs = []; // [jsonPath, element, kind, original]
  const num = (p, value, props) => {
    const el = numberInput({ ...props, value: value ?? '' });
    inputs.push([p, el, 'int', value ?? null]);
    fields.set(p, el);
    return el;
  };
  const name = h('input', { type: 'text', value: unit.name, maxlength: 64, testid: 'correct-name' });
  inputs.push(['name', name, 'text', unit.name]);
  fields.set('name', name);
  const elim = select(
    [
      { value: 'false', label: 'In play' },
      { value: 'true', label: 'Eliminated' },
    ],
    { testid: 'correct-eliminated' },
    String(unit.eliminated),
  );
  inputs.push(['eliminated', elim, 'bool', unit.eliminated]);
  fields.set('eliminated', elim);

  const parts = [field('Name', name), field('Status', elim)];
  if (unit.scrud) {
    const s = unit.scrud;
    parts.push(
      h(
        'fieldset',
        null,
        h('legend', null, `SCRUD (${scrudText(s)})`),
        h(
          'div',
          { class: 'row' },
          field('Quality', num('scrud.quality', s.quality, { min: -100, max: 100 })),
          field('Die faces', num('scrud.faces', s.faces, { min: 2, max: 1000 })),
          field('Defeat penalty', num('scrud.defeat_penalty', s.defeat_penalty, { min: 0, max: 100, testid: 'correct-defeat-penalty' })),
          field('Fatigue penalty', num('scrud.fatigue_penalty', s.fatigue_penalty, { min: 0, max: 100 })),
        ),
      ),
    );
  }
  if (unit.edna) {
    parts.push(
      h(
        'fieldset',
        null,
        h('legend', null, `EDNA (${ednaText(unit.edna)})`),
        h(
          'div',
          { class: 'row' },
          field('EDNA', num('edna.edna', unit.edna.edna, { min: 0, max: 100, testid: 'correct-edna' })),
          field('Start', num('edna.start', unit.edna.start, { min: 1, max: 100 })),
        ),
      ),
    );
  }
  if (unit.scs) {
    const c = unit.scs;
    parts.push(
      h(
        'fieldset',
        null,
        h('legend', null, `SCS (${scsText(c)})`),
        h(
          'div',
          { class: 'row' },
          field('Attack', num('scs.attack', c.attack, { min: 0, max: 99 }), 'Empty: none printed'),
          field('Defense', num('scs.defense', c.defense, { min: 0, max: 99 })),
          field('Steps', num('scs.steps', c.steps, { min: 1, max: 20 })),
          field('Steps lost', num('scs.steps_lost', c.steps_lost, { min: 0, max: 20, testid: 'correct-steps-lost' })),
        ),
        h('div', { class: 'row' }, boolField('Exploit capable', 'scs.exploit_capable', c.exploit_capable), boolField('Out of supply', 'scs.out_of_supply', c.out_of_supply)),
      ),
    );
  }
  if (unit.matrix) {
    parts.push(h('fieldset', null, h('legend', null, `Matrix (${matrixText(unit.matrix)})`), field('Quality (-3 to 3)', num('matrix.quality', unit.matrix.quality, { min: -3, max: 3 }))));
  }
  if (unit.civ) {
    const c = unit.civ;
    const cls = select(['infantry', 'cavalry', 'artillery', 'aircraft', 'other'], {}, c.class);
    inputs.push(['civ.class', cls, 'text', c.class]);
    fields.set('civ.class', cls);
    parts.push(
      h(
        'fieldset',
        null,
        h('legend', null, `Civilization (${civText(c)})`),
        h(
          'div',
          { class: 'row' },
          field('Class', cls),
          field('Era', num('civ.era', c.era, { min: 1, max: 4 })),
          field('Bonus', num('civ.bonus', c.bonus, { min: -20, max: 20 })),
          c.class === 'aircraft' ? field('Dice multiplier', num('civ.dice_multiplier', c.dice_multiplier, { min: 1, max: 10 })) : null,
        ),
      ),
    );
  }

  function boolField(label, p, value) {
    const sel = select(
      [
        { value: 'false', label: 'no' },
        { value: 'true', label: 'yes' },
      ],
      {},
      String(value),
    );
    inputs.push([p, sel, 'bool', value]);
    fields.set(p, sel);
    return field(label, sel);
  }

  const note = h('input', { type: 'text', maxlength: 500, testid: 'correct-note', placeholder: 'a ruling, a rally…' });
  fields.set('note', note);
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('details', null, h('summary', { testid: 'correct-open' }, h('h2', { class: 'summary-heading' }, 'Correct this unit')), parts, field('Why (kept in its history)', note), actions(h('button', { type: 'submit', testid: 'correct-submit' }, 'Save correction'))),
  );

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(
      form,
      async () => {
        const body = {};
        for (const [p, el, kind, original] of inputs) {
          let value;
          if (kind === 'int') {
            value = intValue(el, p);
            if (value === undefined) value = p === 'scs.attack' ? null : original;
          } else if (kind === 'bool') value = el.value === 'true';
          else value = el.value.trim();
          if (value === original) continue;
          const [head, tail] = p.split('.');
          if (tail) (body[head] ||= {})[tail] = value;
          else body[head] = value;
        }
        if (!Object.keys(body).length) throw new FormError('Nothing was changed.', name);
        const n = textValue(note);
        if (n) body.note = n;
        const updated = await sendJSON('PATCH', path, body);
        announce(`${updated.name} corrected.`);
        done(updated);
      },
      fields,
    );
  });
  return form;
}

/** Resupply (SCRUD fatigue cleared, SCS back in supply), with a note. */
function resupplyForm(path, unit, done) {
  const can = (unit.scrud || unit.scs) && !unit.eliminated;
  const note = h('input', { type: 'text', maxlength: 500, testid: 'resupply-note' });
  const form = h(
    'form',
    { class: 'card', novalidate: true },
    h('h2', null, 'Resupply'),
    h(
      'p',
      { class: 'hint' },
      can
        ? 'Rest and resupply: clears its SCRUD fatigue penalty and puts an SCS counter back in supply. Recorded in its history.'
        : unit.eliminated
          ? 'An eliminated unit cannot be resupplied.'
          : 'Only a unit carrying SCRUD or SCS can be resupplied.',
    ),
    can ? field('Note', note) : null,
    can ? actions(h('button', { type: 'submit', testid: 'resupply-submit' }, 'Resupply')) : null,
  );
  const fields = new FieldMap();
  fields.set('note', note);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(
      form,
      async () => {
        const n = textValue(note);
        const updated = await sendJSON('POST', `${path}/resupply`, n ? { note: n } : {});
        announce(`${updated.name} resupplied.`);
        done(updated);
      },
      fields,
    );
  });
  return form;
}
