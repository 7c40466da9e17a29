// Building the page without innerHTML: every text from the service is
// untrusted and only ever lands in text nodes or attributes.

const PROPS = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'open', 'indeterminate']);

/**
 * h('button', {class: 'x', testid: 'login', onclick: fn}, 'Sign in')
 *
 * props: `class` (string or array), `testid` (data-testid), `on<event>`
 * functions (addEventListener), the DOM properties value, checked,
 * disabled, hidden, selected, open; everything else is an attribute
 * (skipped when null, undefined or false; true gives an empty value).
 * Children: nodes, strings and numbers (as text), arrays; null and false
 * are skipped.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null) continue;
      if (key === 'class') {
        const names = Array.isArray(value) ? value.filter(Boolean) : String(value).split(/\s+/).filter(Boolean);
        if (names.length) el.classList.add(...names);
      } else if (key === 'testid') {
        el.setAttribute('data-testid', value);
      } else if (key.startsWith('on') && typeof value === 'function') {
        el.addEventListener(key.slice(2).toLowerCase(), value);
      } else if (PROPS.has(key)) {
        el[key] = value;
      } else if (value !== false) {
        el.setAttribute(key, value === true ? '' : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

/** Append children as h() takes them. */
export function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
  return el;
}

/** Remove every child. */
export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replace every child. */
export function replace(el, ...children) {
  clear(el);
  return append(el, children);
}

let idCounter = 0;
/** A unique element id, for label/for pairs. */
export function uid(prefix = 'f') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/**
 * A labelled control: <div class="field"><label for>..</label>control<small/></div>.
 * The control gets an id if it has none; the hint is tied to it with
 * aria-describedby.
 */
export function field(label, control, hint, extraClass) {
  if (!control.id) control.id = uid();
  const parts = [h('label', { for: control.id }, label), control];
  if (hint) {
    const hintId = uid('hint');
    control.setAttribute('aria-describedby', hintId);
    parts.push(h('small', { class: 'hint', id: hintId }, hint));
  }
  return h('div', { class: ['field', extraClass] }, parts);
}

/** A checkbox with its label after it. */
export function checkbox(label, props = {}) {
  const input = h('input', { type: 'checkbox', ...props });
  if (!input.id) input.id = uid();
  return { input, el: h('div', { class: 'check' }, input, h('label', { for: input.id }, label)) };
}

/** A <select> from [{value, label}] or [value]; `selected` picks one. */
export function select(options, props = {}, selected) {
  const el = h('select', props);
  for (const o of options) {
    const opt = typeof o === 'object' ? o : { value: o, label: String(o) };
    el.appendChild(h('option', { value: opt.value, disabled: opt.disabled }, opt.label));
  }
  if (selected !== undefined && selected !== null) el.value = String(selected);
  return el;
}

/** A number input with optional min, max and step. */
export function numberInput(props = {}) {
  return h('input', { type: 'number', inputmode: 'numeric', step: 1, ...props });
}

/** A timestamp of the service, shown in the reader's time zone. */
export function fmtTime(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return ts;
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A <time> element for a timestamp. */
export function timeEl(ts) {
  return h('time', { datetime: ts, title: ts }, fmtTime(ts));
}

/** The start of a long hash, the whole in the title. */
export function shortHash(hash, n = 12) {
  if (!hash) return '';
  return hash.length > n ? `${hash.slice(0, n)}…` : hash;
}

/** A signed number: +1, 0, -2. */
export function signed(n) {
  if (n === null || n === undefined) return '';
  return n > 0 ? `+${n}` : String(n);
}

/** Announce a message to screen readers (and nothing else). */
export function announce(text) {
  const live = document.getElementById('live');
  if (!live) return;
  live.textContent = '';
  setTimeout(() => {
    live.textContent = text;
  }, 50);
}

/**
 * Copy text to the clipboard. The Clipboard API needs a secure context
 * (https or localhost); elsewhere a selected textarea and execCommand do.
 */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      /* fall through to the older way */
    }
  }
  const ta = h('textarea', { class: 'offscreen', readonly: true, 'aria-hidden': 'true' });
  ta.value = text;
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Save a Blob as a file. */
export function downloadBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, class: 'offscreen' });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** A small key/value list: [['Side', 'red'], ...] (null values skipped). */
export function dl(pairs, cls) {
  const el = h('dl', { class: ['kv', cls] });
  for (const [k, v] of pairs) {
    if (v === null || v === undefined || v === false) continue;
    el.append(h('dt', null, k), h('dd', null, v));
  }
  return el;
}

/**
 * A table. On a narrow screen (style.css) it becomes a list of cards: each
 * row a card, each cell labelled with its column's header, which is why
 * every cell gets a data-label here (set by the caller or from `headers`).
 * props.class 'no-cards' keeps it a table that scrolls sideways instead
 * (a grid whose columns mean something side by side).
 */
export function table(headers, rows, props = {}) {
  const body = h('tbody', null, rows);
  for (const tr of body.rows) {
    [...tr.cells].forEach((cell, i) => {
      const label = headers[i];
      if (!cell.hasAttribute('data-label') && typeof label === 'string' && label) cell.setAttribute('data-label', label);
    });
  }
  const cls = [props.class, 'cards'].filter(Boolean).join(' ');
  const t = h('table', { ...props, class: cls }, h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col' }, x)))), body);
  return h('div', { class: 'table-wrap' }, t);
}

/** "1 action", "2 actions"; `many` when the plural is not just an s. */
export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
