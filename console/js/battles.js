// #/battles: the campaign's interactive battles (Matrix and Civilization).
// #/battles/<id>: one battle as it stands; the umpire fights it one action
// at a time (Matrix roll, commit, accept; Civilization phase; abandon),
// the battle drawn again from the service's answer after each action.

import { h, replace, field, dl, table, timeEl, announce, plural } from './dom.js';
import { getJSON, getAll, createRoller, ApiError } from './api.js';
import { cpath, isUmpire, refreshCampaign } from './session.js';
import { FieldMap, runForm, actions, errorBox, textValue } from './forms.js';
import { systemTitle } from './format.js';
import { diceParts } from './results.js';
import { reportPanel } from './reportview.js';
import { matrixState, matrixActions, matrixResult } from './matrix-battle.js';
import { civState, civActions, civResult } from './civ-battle.js';
import { onLive } from './live.js';

const STATUS_TEXT = {
  open: 'open',
  finished: 'finished',
  escalated: 'escalated',
  abandoned: 'abandoned',
};

export async function renderBattles(view) {
  view.append(h('h1', null, 'Battles'));
  if (isUmpire()) {
    view.append(
      h(
        'p',
        { class: 'actions' },
        h('a', { class: 'button', href: '#/combat/matrix', testid: 'new-matrix' }, 'New Matrix battle'),
        h('a', { class: 'button', href: '#/combat/civ', testid: 'new-civ' }, 'New Civilization battle'),
      ),
    );
  }
  const items = await getAll(cpath('/battles'));
  if (!items.length) {
    view.append(h('p', { class: 'empty' }, 'No battle yet.'));
    return;
  }
  // Open battles first, then the newest.
  const sorted = [...items].sort((a, b) => (a.status === 'open') - (b.status === 'open') || a.created_at.localeCompare(b.created_at)).reverse();
  view.append(battleTable(sorted));
}

export function battleTable(items) {
  return table(
    ['Battle', 'System', 'Status', 'Turn', 'Actions', 'Started', 'Note'],
    items.map((b) =>
      h(
        'tr',
        { testid: 'battle-row', 'data-battle-id': b.id, 'data-status': b.status },
        h('th', { scope: 'row' }, h('a', { href: `#/battles/${encodeURIComponent(b.id)}` }, b.id)),
        h('td', null, systemTitle(b.system)),
        h('td', null, h('span', { class: ['badge', `status-${b.status}`] }, STATUS_TEXT[b.status] || b.status)),
        h('td', null, b.turn),
        h('td', null, b.n_actions),
        h('td', null, timeEl(b.created_at)),
        h('td', null, b.note || ''),
      ),
    ),
    { class: 'battles' },
  );
}

export async function renderBattle(view, battleId) {
  const path = cpath(`/battles/${encodeURIComponent(battleId)}`);
  const roller = createRoller();
  // Messages about the last action; drawn next to the actions (not at the
  // top of the page, out of sight on a phone) and scrolled to.
  const flash = h('div', { class: 'flash', tabindex: '-1' });
  const body = h('div', { class: 'battle' });
  view.append(h('p', { class: 'crumbs' }, h('a', { href: '#/battles' }, 'Battles'), ' / ', battleId), body);

  /** Show a message by the actions and bring it into view. */
  function tell(...children) {
    replace(flash, ...children);
    flash.scrollIntoView({ block: 'center' });
    flash.focus({ preventScroll: true });
  }

  let battle;
  try {
    battle = await getJSON(path);
  } catch (err) {
    view.append(h('h1', null, 'Battle'), errorBox(err));
    return;
  }

  /**
   * Take one action. makeRequest() builds it (and may throw a FormError);
   * it is sent with the battle's n_actions as expect_actions, so it lands
   * only on the state shown. Another action landing first is answered by
   * drawing the battle as it now stands.
   */
  async function act(form, makeRequest, fields) {
    replace(flash);
    // One action at a time: every action button waits for this one.
    const buttons = [...body.querySelectorAll('.battle-actions button')].filter((b) => !b.disabled);
    buttons.forEach((b) => {
      b.disabled = true;
    });
    await runForm(
      form,
      async () => {
        const req = { ...makeRequest(), expect_actions: battle.n_actions };
        try {
          const { data, replayed } = await roller('POST', `${path}/actions`, req);
          draw(data);
          announce(`Action ${req.action} done.`);
          if (replayed) tell(h('p', { class: 'notice' }, 'The service answered an earlier submission of this action: nothing was rolled again.'));
        } catch (err) {
          if (err instanceof ApiError && err.status === 409 && err.field === 'expect_actions') {
            const seen = req.expect_actions; // what this page showed when the action was chosen
            draw(await getJSON(path));
            tell(
              errorBox(
                `Another action landed first: the battle now has ${plural(battle.n_actions, 'action')}, not the ${seen} shown when you chose. Nothing of yours was done. The battle is shown as it stands now: choose again.`,
              ),
            );
            return;
          }
          throw err;
        } finally {
          refreshCampaign().catch(() => {});
        }
      },
      fields,
    );
    buttons.forEach((b) => {
      b.disabled = false;
    });
  }

  function draw(b) {
    battle = b;
    const umpireCanAct = isUmpire() && b.status === 'open';
    const state = b.system === 'civ' ? civState(b) : matrixState(b);
    const result = b.system === 'civ' ? civResult(b) : matrixResult(b);
    const controls = umpireCanAct ? (b.system === 'civ' ? civActions(b, act) : matrixActions(b, act)) : null;
    const showMd = h('button', { type: 'button', testid: 'battle-markdown' }, 'Share the battle (Markdown, HTML)');
    const mdArea = h('div');
    showMd.addEventListener('click', () => {
      showMd.hidden = true;
      replace(mdArea, reportPanel(path, { filename: b.id, heading: 'Battle' }));
    });
    // The flash keeps its message across redraws (a live one included):
    // it is cleared when the next action is sent.
    replace(
      body,
      h(
        'h1',
        null,
        `${systemTitle(b.system)} battle: ${b.setup.attacker.name} against ${b.setup.defender.name} `,
        h('span', { class: ['badge', `status-${b.status}`], testid: 'battle-status' }, STATUS_TEXT[b.status] || b.status),
      ),
      // The result first, before the armies: what a player came to read.
      result,
      flash,
      controls ? h('section', { class: 'card battle-actions', 'aria-label': 'Actions' }, h('h2', null, 'Next action'), controls, abandonForm()) : null,
      state,
      diceParts(b.dice),
      dl([
        ['Id', h('code', null, b.id)],
        ['Turn', b.turn],
        ['Note', b.note],
        ['Started', timeEl(b.created_at)],
        ['Last action', b.n_actions ? timeEl(b.updated_at) : 'none yet'],
        ['Actions', h('span', { testid: 'battle-actions' }, b.n_actions)],
        ['Record', b.combat_id ? h('a', { href: `#/reports/${encodeURIComponent(b.combat_id)}`, testid: 'open-report' }, 'the report of this battle') : null],
        ['Escalated from', b.escalated_from ? h('a', { href: `#/battles/${encodeURIComponent(b.escalated_from)}` }, b.escalated_from) : null],
        ['Escalated to', b.escalated_to ? h('a', { href: `#/battles/${encodeURIComponent(b.escalated_to)}` }, b.escalated_to) : null],
      ]),
      h('section', null, h('h2', null, 'Share'), showMd, mdArea),
    );
  }

  function abandonForm() {
    const fields = new FieldMap();
    const note = h('input', { type: 'text', maxlength: 500, testid: 'abandon-note' });
    fields.set('note', note);
    const form = h(
      'form',
      { class: 'abandon', novalidate: true },
      h(
        'details',
        null,
        h('summary', null, 'Abandon the battle'),
        h('p', { class: 'hint' }, 'Ends it with no result: nothing happens to its units, no record is stored, and its seed is revealed.'),
        field('Why (optional)', note),
        actions(h('button', { type: 'submit', class: 'danger', testid: 'battle-abandon' }, 'Abandon')),
      ),
    );
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      act(
        form,
        () => {
          const req = { action: 'abandon' };
          const n = textValue(note);
          if (n) req.note = n;
          return req;
        },
        fields,
      );
    });
    return form;
  }

  draw(battle);

  // Everyone follows an open battle as it is fought, from this tab or any
  // other, Discord or the API: the live stream (live.js) says when an
  // action lands, and the battle is read again then; no polling. Refresh
  // reads it by hand (and is all there is while the stream is down).
  const refresh = h('button', { type: 'button', class: 'button-small', testid: 'battle-refresh' }, 'Refresh');
  refresh.addEventListener('click', async () => {
    refresh.disabled = true;
    try {
      draw(await getJSON(path));
    } catch (err) {
      tell(errorBox(err));
    } finally {
      refresh.disabled = false;
    }
  });
  view.querySelector('.crumbs').append(' ', refresh);
  const unfollow = onLive('battle', async (ev) => {
    if (!view.isConnected) {
      unfollow();
      return;
    }
    if (ev.battle_id !== battle.id || (ev.n_actions === battle.n_actions && ev.status === battle.status)) return;
    try {
      draw(await getJSON(path));
    } catch {
      /* keep the battle shown; Refresh reads it again */
    }
  });
}
