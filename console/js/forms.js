// Forms: submitting with the buttons disabled, and showing the service's
// problem documents next to the form, with the field they name outlined.

import { h, uid, announce } from './dom.js';
import { ApiError, NetworkError } from './api.js';

/**
 * Which input a request field came from. A form records, while it builds
 * the request body, the element behind each JSON path it writes
 * (`sides[0].units[2].die`). A problem's `field` is then looked up exactly,
 * or by its longest known prefix (`table.rows.7[3]` falls back to `table`).
 */
export class FieldMap {
  constructor() {
    this.map = new Map();
  }

  set(path, el) {
    if (el) this.map.set(path, el);
    return el;
  }

  find(path) {
    if (!path) return null;
    let p = path;
    for (;;) {
      if (this.map.has(p)) return this.map.get(p);
      const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
      if (cut <= 0) return null;
      p = p.slice(0, cut);
    }
  }
}

/** A client-side check that failed before anything was sent. */
export class FormError extends Error {
  constructor(message, el) {
    super(message);
    this.name = 'FormError';
    this.el = el || null;
  }
}

/** Words for an error, whatever its kind. */
export function errorText(err, { withField = true } = {}) {
  if (err instanceof ApiError) {
    const where = withField && err.field ? ` (field ${err.field})` : '';
    return `${err.detail}${where}`;
  }
  if (err instanceof NetworkError) {
    return 'No answer from the service (network error). Nothing is lost: submitting the same form again retries with the same Idempotency-Key, so no die is rolled twice.';
  }
  if (err instanceof FormError) return err.message;
  return `Something went wrong in the console: ${err && err.message ? err.message : err}`;
}

/** Remove the error box and the outlines a form shows. */
export function clearErrors(form) {
  for (const box of form.querySelectorAll(':scope > .form-error')) box.remove();
  for (const el of form.querySelectorAll('.invalid')) {
    el.classList.remove('invalid');
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-errormessage');
  }
}

/**
 * Show an error at the end of a form (before its actions), outline the
 * input it concerns and move the focus there.
 */
export function showError(form, err, fields) {
  clearErrors(form);
  let target = null;
  if (err instanceof FormError) target = err.el;
  else if (err instanceof ApiError && fields) target = fields.find(err.field);

  const box = h('div', { class: 'form-error', role: 'alert', testid: 'error' });
  if (err instanceof ApiError && err.title) box.append(h('strong', null, `${err.title}: `));
  box.append(errorText(err, { withField: !target }));
  const actions = form.querySelector(':scope > .actions');
  form.insertBefore(box, actions || null);

  if (target) {
    box.id = uid('error');
    target.setAttribute('aria-errormessage', box.id);
    target.classList.add('invalid');
    target.setAttribute('aria-invalid', 'true');
    // Reveal a collapsed <details> holding the input before focusing it.
    for (let p = target.parentElement; p; p = p.parentElement) {
      if (p.tagName === 'DETAILS') p.open = true;
    }
    if (typeof target.focus === 'function') target.focus();
  }
  return box;
}

/** A page-level error (a load that failed, or a message), with data-testid="error". */
export function errorBox(err) {
  return h('div', { class: 'form-error', role: 'alert', testid: 'error' }, typeof err === 'string' ? err : errorText(err));
}

/**
 * Submitting form runs `work` through runForm (its errors shown against
 * fields): the handler every request form of the console shares.
 */
export function onSubmit(form, fields, work) {
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    runForm(form, work, fields);
  });
}

/**
 * Run `work` for a form: its buttons disabled and the form marked busy
 * while the request is in flight, a second submission ignored, errors
 * shown on the form. Resolves to what `work` answered, or undefined after
 * an error.
 */
export async function runForm(form, work, fields) {
  if (form.dataset.busy === 'true') return undefined;
  form.dataset.busy = 'true';
  form.setAttribute('aria-busy', 'true');
  const buttons = [...form.querySelectorAll('button')];
  const wasDisabled = buttons.map((b) => b.disabled);
  buttons.forEach((b) => {
    b.disabled = true;
  });
  clearErrors(form);
  try {
    return await work();
  } catch (err) {
    showError(form, err, fields);
    announce(errorText(err));
    return undefined;
  } finally {
    buttons.forEach((b, i) => {
      b.disabled = wasDisabled[i];
    });
    form.dataset.busy = 'false';
    form.removeAttribute('aria-busy');
  }
}

/** An integer from an input, or undefined when empty; FormError when not whole. */
export function intValue(input, label) {
  const raw = input.value.trim();
  if (raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new FormError(`${label}: a whole number, please`, input);
  return n;
}

/** A trimmed text, or undefined when empty. */
export function textValue(input) {
  const v = input.value.trim();
  return v === '' ? undefined : v;
}

/** A form's row of buttons (errors are shown just above it). */
export function actions(...buttons) {
  return h('div', { class: 'actions' }, buttons);
}
