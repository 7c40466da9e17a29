// #/tables: the combat results tables an SCS combat can be read on, each
// drawn as its grid (rolls down, odds columns across): the campaign's own
// and the built-in ones. The umpire creates, replaces (PUT) and deletes
// (DELETE) the campaign's tables with the editor of table-editor.js.
// #/tables/<name> scrolls to that table.

import { h, replace, timeEl, announce } from './dom.js';
import { getJSON, getAll, sendJSON } from './api.js';
import { cpath, isUmpire } from './session.js';
import { errorBox, errorText } from './forms.js';
import { tableEditor, rollKeys } from './table-editor.js';

export async function renderTables(view, focusName) {
  view.append(
    h('h1', null, 'Combat results tables'),
    h(
      'p',
      null,
      'An SCS combat reads one cell: the column of its odds, the row of its roll. A cell says who loses steps and retreats: ',
      h('code', null, 'A1'),
      ' the attacker loses a step, ',
      h('code', null, 'D2r2'),
      ' the defender loses two and retreats two hexes, ',
      h('code', null, '-'),
      ' nothing.',
    ),
  );
  const editorArea = h('div', { class: 'editor-area' });
  const own = h('section', { 'aria-labelledby': 'own-tables' });
  const builtin = h('section', { 'aria-labelledby': 'builtin-tables' });
  view.append(editorArea, own, builtin);

  let builtins = [];
  /** Open the editor on a table (null: a new one); `copy`: start from it under a new name. */
  function edit(t, { copy = false } = {}) {
    replace(
      editorArea,
      tableEditor({
        table: t,
        isNew: !t || copy,
        builtinNames: builtins.map((b) => b.name),
        onSaved: async (saved) => {
          replace(editorArea);
          await loadOwn(saved.name);
        },
        onCancel: () => replace(editorArea),
      }),
    );
    editorArea.scrollIntoView({ block: 'start' });
    const first = editorArea.querySelector('input, select');
    if (first) first.focus({ preventScroll: true });
  }

  if (isUmpire()) {
    view.insertBefore(
      h('p', { class: 'actions' }, h('button', { type: 'button', class: 'primary', testid: 'table-new', onclick: () => edit(null) }, 'New table')),
      editorArea,
    );
  }

  async function loadOwn(scrollTo) {
    const heading = h('h2', { id: 'own-tables' }, "The campaign's tables");
    try {
      const items = await getAll(cpath('/tables'));
      replace(
        own,
        heading,
        items.length
          ? items.map((t) => tableCard(t, { umpire: isUmpire(), onEdit: () => edit(t), onDeleted: () => loadOwn() }))
          : h('p', { class: 'empty', testid: 'tables-empty' }, isUmpire() ? 'None yet: make one with New table, or copy a built-in one below.' : 'None: its combats use the built-in tables.'),
      );
    } catch (err) {
      replace(own, heading, errorBox(err));
    }
    scrollToCard(scrollTo);
  }

  async function loadBuiltin() {
    const heading = h('h2', { id: 'builtin-tables' }, 'Built-in tables');
    try {
      builtins = (await getJSON('/v1/tables')).items;
      replace(
        builtin,
        heading,
        builtins.map((t) => tableCard(t, { umpire: isUmpire(), onCopy: () => edit(t, { copy: true }) })),
      );
    } catch (err) {
      replace(builtin, heading, errorBox(err));
    }
  }

  function scrollToCard(name) {
    if (!name) return;
    const card = [...view.querySelectorAll('[data-testid="table-card"]')].find((c) => c.dataset.tableName === name);
    if (card) card.scrollIntoView({ block: 'start' });
  }

  await Promise.all([loadOwn(), loadBuiltin()]);
  scrollToCard(focusName);
}

/** The class of a cell by whom it hurts: the attacker, the defender, both, none. */
export function cellClass(result) {
  const r = String(result || '');
  const a = /(^|[ /])A/.test(r);
  const d = /(^|[ /])D/.test(r);
  if (a && d) return 'cell-both';
  if (a) return 'cell-att';
  if (d) return 'cell-def';
  return 'cell-none';
}

/** A table as a grid: rolls down, columns across. */
export function tableGrid(t) {
  const keys = rollKeys(t.roll).filter((k) => t.rows[k]);
  return h(
    'div',
    { class: 'table-wrap grid-wrap' },
    h(
      'table',
      { class: 'crt no-cards', testid: 'table-grid', 'data-table-name': t.name },
      h('caption', { class: 'visually-hidden' }, `${t.name}: results by roll (${t.roll}) and odds`),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, t.roll), t.columns.map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        null,
        keys.map((k) =>
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, k),
            t.rows[k].map((cell, i) => h('td', { class: cellClass(cell), testid: 'table-cell', 'data-roll': k, 'data-col': i }, cell)),
          ),
        ),
      ),
    ),
  );
}

function tableCard(t, { umpire, onEdit, onCopy, onDeleted }) {
  const out = h('div');
  const buttons = [];
  if (umpire && onEdit) buttons.push(h('button', { type: 'button', testid: 'table-edit', onclick: onEdit }, 'Edit'));
  if (umpire && onCopy) buttons.push(h('button', { type: 'button', testid: 'table-copy', onclick: onCopy }, 'Copy into a new table'));
  if (umpire && onDeleted) {
    const del = h('button', { type: 'button', class: 'danger', testid: 'table-delete' }, 'Delete');
    const yes = h('button', { type: 'button', class: 'danger', testid: 'table-delete-confirm', hidden: true }, `Yes, delete ${t.name}`);
    const no = h('button', { type: 'button', class: 'button-quiet', hidden: true }, 'Keep it');
    const flip = (on) => {
      del.hidden = on;
      yes.hidden = !on;
      no.hidden = !on;
      (on ? no : del).focus();
    };
    del.addEventListener('click', () => flip(true));
    no.addEventListener('click', () => flip(false));
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      try {
        await sendJSON('DELETE', cpath(`/tables/${encodeURIComponent(t.name)}`));
        announce(`Table ${t.name} deleted.`);
        onDeleted();
      } catch (err) {
        replace(out, errorBox(errorText(err)));
        yes.disabled = false;
        flip(false);
      }
    });
    buttons.push(del, yes, no);
  }
  return h(
    'article',
    { class: 'card table-card', testid: 'table-card', 'data-table-name': t.name, 'data-source': t.builtin ? 'builtin' : 'campaign' },
    h('h3', null, t.name, ' ', h('span', { class: 'badge' }, t.roll), t.example ? h('span', { class: 'badge' }, 'example') : null),
    t.note ? h('p', { class: 'hint' }, t.note) : null,
    t.updated_at ? h('p', { class: 'hint' }, 'Last changed ', timeEl(t.updated_at)) : null,
    tableGrid(t),
    buttons.length ? h('div', { class: 'actions' }, buttons) : null,
    out,
  );
}
