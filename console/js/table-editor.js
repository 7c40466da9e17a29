// The umpire's editor of a combat results table: its name, roll kind
// (2d6 or d66), note, odds columns and one input per cell, saved whole
// with PUT .../tables/{name} (created or replaced). Nothing is checked
// here that the service checks: its problem document names the field,
// `rows.7[3]` for a cell (row of the roll 7, fourth column), `columns[2]`
// for a column, and the message is shown at that cell, which is outlined
// and focused. A table can also be loaded from a JSON file (the shape GET
// answers, or a table exported from elsewhere) into the editor.

import { h, replace, field, select, announce } from './dom.js';
import { sendJSON } from './api.js';
import { cpath } from './session.js';
import { FieldMap, FormError, onSubmit, actions, textValue } from './forms.js';

/** The rows of a roll kind, in order: 2..12, or 11..16, 21..26, … 66. */
export function rollKeys(roll) {
  if (roll === 'd66') {
    const keys = [];
    for (let a = 1; a <= 6; a += 1) for (let b = 1; b <= 6; b += 1) keys.push(`${a}${b}`);
    return keys;
  }
  return Array.from({ length: 11 }, (_, i) => String(i + 2));
}

/**
 * A problem's field as [roll, column] when it names a cell, [roll, null]
 * for a whole row, or null. Takes `rows.7[3]` (the service's), and also
 * `table.rows.7[3]`, `rows[7][3]` and `rows[7].cells[3]`.
 */
export function parseCellField(f) {
  const m = /^(?:table\.)?rows(?:\.(\d+)|\[(\d+)\])(?:(?:\.cells)?\[(\d+)\])?$/.exec(f || '');
  if (!m) return null;
  return [m[1] || m[2], m[3] === undefined ? null : Number(m[3])];
}

/**
 * table: the table to edit (null for a new one); isNew: save under a name
 * typed here (a copy of `table` when given); builtinNames: names a
 * campaign's table cannot take; onSaved(table), onCancel().
 */
export function tableEditor({ table, isNew, builtinNames = [], onSaved, onCancel }) {
  const fields = new FieldMap();
  let state = normalise(table) || blank();
  const name = h('input', { type: 'text', testid: 'table-name', maxlength: 64, autocomplete: 'off', spellcheck: 'false', value: isNew ? (table ? `${table.name}-house` : '') : table.name, readonly: !isNew, pattern: '[A-Za-z0-9._-]{1,64}' });
  const roll = select(['2d6', 'd66'], { testid: 'table-roll' }, state.roll);
  const note = h('input', { type: 'text', testid: 'table-note', maxlength: 500, value: state.note || '' });
  const gridArea = h('div', { class: 'table-wrap grid-wrap' });
  fields.set('table_name', name);
  fields.set('name', name);
  fields.set('roll', roll);
  fields.set('note', note);

  let columnInputs = [];
  let cellInputs = new Map(); // `${roll key}:${column}` → input

  /** Read what is typed back into `state`. */
  function collect() {
    state.columns = columnInputs.map((i) => i.value.trim());
    const rows = {};
    for (const k of rollKeys(state.roll)) rows[k] = state.columns.map((_, c) => (cellInputs.get(`${k}:${c}`) || { value: '' }).value.trim());
    state.rows = rows;
  }

  function drawGrid() {
    columnInputs = state.columns.map((c, i) => {
      const input = h('input', { type: 'text', class: 'col-input', value: c, testid: 'table-column', 'data-col': i, 'aria-label': `Column ${i + 1} (odds)`, autocomplete: 'off', size: 5 });
      fields.set(`columns[${i}]`, input);
      return input;
    });
    fields.set('columns', columnInputs[0] || roll);
    cellInputs = new Map();
    const keys = rollKeys(state.roll);
    const head = h(
      'tr',
      null,
      h('th', { scope: 'col' }, state.roll),
      columnInputs.map((input, i) =>
        h(
          'th',
          { scope: 'col' },
          input,
          h('button', { type: 'button', class: 'button-small button-quiet col-remove', testid: 'table-column-remove', 'data-col': i, 'aria-label': `Remove column ${i + 1}`, onclick: () => removeColumn(i), hidden: state.columns.length <= 1 }, '×'),
        ),
      ),
    );
    const body = keys.map((k, r) => {
      const rowCells = (state.rows[k] || []).slice();
      return h(
        'tr',
        null,
        h('th', { scope: 'row' }, k),
        state.columns.map((col, c) => {
          const input = h('input', {
            type: 'text',
            class: 'cell-input',
            value: rowCells[c] ?? '',
            testid: 'table-cell-input',
            'data-roll': k,
            'data-col': c,
            'aria-label': `Roll ${k}, column ${col || c + 1}`,
            autocomplete: 'off',
            spellcheck: 'false',
            size: 6,
          });
          cellInputs.set(`${k}:${c}`, input);
          fields.set(`rows.${k}[${c}]`, input);
          if (c === 0) fields.set(`rows.${k}`, input);
          if (r === 0 && c === 0) fields.set('rows', input);
          return h('td', null, input);
        }),
      );
    });
    replace(gridArea, h('table', { class: 'crt crt-edit no-cards', testid: 'table-editor-grid' }, h('thead', null, head), h('tbody', null, body)));
  }

  function removeColumn(i) {
    collect();
    state.columns.splice(i, 1);
    for (const k of Object.keys(state.rows)) state.rows[k].splice(i, 1);
    drawGrid();
  }

  const addColumn = h('button', { type: 'button', class: 'button-small', testid: 'table-column-add' }, 'Add a column');
  addColumn.addEventListener('click', () => {
    collect();
    if (state.columns.length >= 20) return;
    state.columns.push('');
    for (const k of Object.keys(state.rows)) state.rows[k].push('-');
    drawGrid();
    columnInputs[columnInputs.length - 1].focus();
  });
  roll.addEventListener('change', () => {
    collect();
    state.roll = roll.value;
    for (const k of rollKeys(state.roll)) if (!state.rows[k]) state.rows[k] = state.columns.map(() => '-');
    drawGrid();
  });

  const fileInput = h('input', { type: 'file', accept: '.json,application/json', testid: 'table-import', class: 'file-input' });
  const fileStatus = h('span', { class: 'inline-status', role: 'status' });
  fileInput.addEventListener('change', async () => {
    const file = fileInput.files && fileInput.files[0];
    if (!file) return;
    try {
      const t = normalise(JSON.parse(await file.text()));
      if (!t) throw new Error('not a table (it needs roll, columns and rows)');
      state = t;
      roll.value = t.roll;
      note.value = t.note || '';
      if (isNew && t.name && !name.value) name.value = t.name;
      drawGrid();
      fileStatus.textContent = `Loaded ${file.name}: check it, then save.`;
    } catch (err) {
      fileStatus.textContent = `${file.name} could not be read: ${err.message}`;
    }
    announce(fileStatus.textContent);
  });

  drawGrid();
  const form = h(
    'form',
    { class: 'card table-editor', novalidate: true, testid: 'table-editor' },
    h('h2', null, isNew ? 'New table' : `Edit ${table.name}`),
    h('p', { class: 'hint' }, 'Columns from the lowest odds to the highest (1:2, 1:1, 2:1 …). Each cell: - for nothing, or A / D with the steps lost and r with the hexes retreated: A1, D1r2, A1 D1.'),
    h('div', { class: 'row' }, field('Name', name, isNew ? 'Letters, digits, . _ and -' : 'Saving replaces this table.'), field('Roll', roll), field('Note', note)),
    h('div', { class: 'toolbar' }, addColumn, h('label', { class: 'button button-small file-label' }, 'Load a JSON file', fileInput), fileStatus),
    gridArea,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'table-save' }, 'Save the table'), h('button', { type: 'button', class: 'button-quiet', onclick: onCancel }, 'Cancel')),
  );

  // A problem naming a cell: its message goes under that cell too.
  const find = fields.find.bind(fields);
  fields.find = (f) => {
    const cell = parseCellField(f);
    if (cell) {
      const input = cell[1] === null ? cellInputs.get(`${cell[0]}:0`) : cellInputs.get(`${cell[0]}:${cell[1]}`);
      if (input) return input;
    }
    return find(f);
  };

  onSubmit(form, fields, async () => {
    for (const el of form.querySelectorAll('.cell-error')) el.remove();
    collect();
    const n = textValue(name);
    if (!n) throw new FormError('Name the table.', name);
    if (isNew && builtinNames.includes(n)) throw new FormError(`${n} is a built-in table's name: choose another.`, name);
    const body = { roll: state.roll, columns: state.columns, rows: state.rows };
    const nt = textValue(note);
    if (nt) body.note = nt;
    try {
      const saved = await sendJSON('PUT', cpath(`/tables/${encodeURIComponent(n)}`), body);
      announce(`Table ${saved.name} saved.`);
      onSaved(saved);
    } catch (err) {
      const input = err.field ? fields.find(err.field) : null;
      if (input && input.classList.contains('cell-input')) {
        input.closest('td').append(h('span', { class: 'cell-error', testid: 'cell-error', role: 'alert' }, err.detail));
      }
      throw err;
    }
  });
  return form;
}

function blank() {
  const columns = ['1:2', '1:1', '2:1', '3:1'];
  const rows = {};
  for (const k of rollKeys('2d6')) rows[k] = columns.map(() => '-');
  return { roll: '2d6', columns, rows, note: '' };
}

/** A copy of a table's editable part, or null when it is not a table. */
function normalise(t) {
  if (!t || typeof t !== 'object' || !Array.isArray(t.columns) || !t.rows || typeof t.rows !== 'object') return null;
  const roll = t.roll === 'd66' ? 'd66' : '2d6';
  const rows = {};
  for (const k of rollKeys(roll)) rows[k] = Array.isArray(t.rows[k]) ? t.rows[k].map((x) => String(x)) : t.columns.map(() => '-');
  return { roll, columns: t.columns.map((c) => String(c)), rows, note: t.note || '', name: t.name };
}
