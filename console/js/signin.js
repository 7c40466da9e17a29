// The sign-in page: paste a campaign's umpire or player token.

import { h, field, announce } from './dom.js';
import { runForm, actions, FormError } from './forms.js';
import { signIn, cleanToken } from './session.js';

/** `message`: why the user is here again (an expired token, say). */
export function renderSignIn(view, { message, onSignedIn } = {}) {
  const token = h('input', {
    type: 'password',
    name: 'token',
    testid: 'token',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'ump_… or ply_…',
  });
  const show = h('input', { type: 'checkbox', id: 'token-show' });
  show.addEventListener('change', () => {
    token.type = show.checked ? 'text' : 'password';
  });

  const form = h(
    'form',
    { class: 'card signin', novalidate: true },
    h('h1', { tabindex: '-1' }, 'Sign in'),
    h(
      'p',
      null,
      "Paste a campaign's token. The umpire token (ump_…) runs the campaign; a player token (ply_…) reads it: its units, their histories, the reports and the next commitment. The token is kept in this browser tab only and sent to this service alone.",
    ),
    message ? h('p', { class: 'notice', role: 'alert', testid: 'error' }, message) : null,
    field('Token', token),
    h('div', { class: 'check' }, show, h('label', { for: 'token-show' }, 'Show the token')),
    actions(h('button', { type: 'submit', class: 'primary', testid: 'login' }, 'Sign in')),
  );

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const old = form.querySelector('.notice');
    if (old) old.remove();
    runForm(form, async () => {
      if (!cleanToken(token.value)) throw new FormError('Paste a token first.', token);
      await signIn(token.value);
      announce('Signed in.');
      if (onSignedIn) onSignedIn();
    });
  });

  view.append(
    form,
    h(
      'section',
      { class: 'card signin' },
      h('h2', null, 'No token yet?'),
      h('p', null, 'Start a campaign: name it and its sides, set its options, and get its umpire and player tokens.'),
      h('p', { class: 'actions' }, h('a', { class: 'button', href: '#/new', testid: 'start-campaign' }, 'Start a new campaign')),
    ),
  );
  token.focus();
}
