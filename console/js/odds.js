// The odds where decisions are made: a "Chances" button beside a combat
// form or a battle's action, which sends the body the form would send to
// the campaign's odds route (docs/odds.md) and shows the answer compactly:
// exact fractions, or estimates with their standard error. Nothing is
// rolled, claimed or written.

import { h, replace } from './dom.js';
import { sendJSON } from './api.js';
import { cpath } from './session.js';
import { errorText } from './forms.js';

/** A probability as shown: "37.0% (10/27)" exact, "36.8% ± 0.5%" sampled. */
export function pText(p) {
  if (!p) return '–';
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  return p.fraction !== undefined ? `${pct(p.decimal)} (${p.fraction})` : `${pct(p.decimal)} ± ${pct(p.se)}`;
}

/** One probability, its key and raw decimal kept on the element for tests. */
export function pEl(key, p) {
  return h('span', { class: 'odds-p', testid: 'odds-p', 'data-key': key, 'data-decimal': p ? String(p.decimal) : '' }, pText(p));
}

/** A line "label: p, label: p". */
export function pLine(label, pairs) {
  const parts = [];
  pairs.forEach(([name, key, p], i) => {
    if (i) parts.push(', ');
    parts.push(`${name} `, pEl(key, p));
  });
  return h('li', null, label ? h('strong', null, `${label}: `) : null, parts);
}

/** How an answer was made: "exact", or "estimate ± se (n samples)". */
export function howMade(a) {
  if (a.exact) return 'exact';
  return `estimate ± standard error (${a.samples ?? '?'} samples)`;
}

/**
 * A "Chances" button and its output. `request()` builds the body (it may
 * throw, e.g. a FormError); `system` names the route; `render(answer)`
 * draws the answer (a list of nodes). Answers {el, ask}.
 */
export function oddsPanel({ system, request, render, label = 'Chances', testid = 'odds' }) {
  const out = h('div', { class: 'odds-out', testid: `${testid}-out`, 'aria-live': 'polite' });
  const button = h('button', { type: 'button', testid: `${testid}-ask` }, label);
  let seq = 0;
  async function ask() {
    const mine = ++seq;
    button.disabled = true;
    replace(out, h('p', { class: 'hint' }, 'Working out the chances…'));
    try {
      const body = request();
      const answer = await sendJSON('POST', cpath(`/odds/${system}`), body);
      if (mine !== seq) return;
      replace(
        out,
        h(
          'div',
          { class: 'odds', testid, 'data-exact': answer.exact ? 'true' : 'false' },
          h('p', { class: 'hint', testid: 'odds-how' }, `Chances (${howMade(answer)}), nothing rolled:`),
          render(answer),
        ),
      );
    } catch (err) {
      if (mine !== seq) return;
      replace(out, h('p', { class: 'form-error', role: 'alert', testid: 'odds-error' }, errorText(err)));
    } finally {
      if (mine === seq) button.disabled = false;
    }
  }
  button.addEventListener('click', ask);
  return { el: h('div', { class: 'odds-panel' }, button, out), ask, out };
}

/** SCRUD: each side's chance of suffering more defeats, each unit's of elimination. */
export function renderScrud(a) {
  const md = a.more_defeats || {};
  const s = a.sides || [];
  const items = [
    pLine('More defeats', [
      [s[0] ? s[0].name : 'first', 'more_defeats.first', md.first],
      [s[1] ? s[1].name : 'second', 'more_defeats.second', md.second],
      ['equal', 'more_defeats.equal', md.equal],
    ]),
  ];
  s.forEach((side, k) => {
    items.push(pLine(`${side.name} eliminated`, (side.units || []).map((u, j) => [u.name, `sides[${k}].units[${j}].eliminated`, u.eliminated])));
  });
  return h('ul', { class: 'odds-list plain' }, items);
}

/** EDNA: each unit's pass, fail and ineffective now. */
export function renderEdna(a) {
  return h(
    'ul',
    { class: 'odds-list plain' },
    (a.units || []).map((u, i) =>
      pLine(u.name, [
        ['passes', `units[${i}].passed`, u.passed],
        ['fails', `units[${i}].failed`, u.failed],
        ['ineffective', `units[${i}].ineffective_now`, u.ineffective_now],
      ]),
    ),
  );
}

/** SCS: each result's chance, each unit's of being lost. */
export function renderScs(a) {
  const items = [h('li', null, `Odds ${a.odds ?? '–'}, column ${a.column ?? '–'}${a.off_table ? ' (off the table)' : ''}`)];
  if ((a.results || []).length) items.push(pLine('Results', a.results.map((r, i) => [r.result, `results[${i}].p`, r.p])));
  for (const stack of ['attackers', 'defenders']) {
    const units = a[stack] || [];
    if (units.length) items.push(pLine(`${stack} lost`, units.map((u, i) => [u.name, `${stack}[${i}].eliminated`, u.eliminated])));
  }
  return h('ul', { class: 'odds-list plain' }, items);
}

/** Matrix: who wins the battle now, and if the reserve considered joins. */
export function renderMatrix(a, names = {}) {
  const winner = (key, label, b) =>
    b
      ? pLine(`${label} (${howMade(b)})`, [
          [names.attacker || 'attacker', `${key}.winner.attacker`, b.winner && b.winner.attacker],
          [names.defender || 'defender', `${key}.winner.defender`, b.winner && b.winner.defender],
          ['draw', `${key}.winner.draw`, b.winner && b.winner.draw],
        ])
      : null;
  const r = a.reserve;
  // The combat the reserve would join: its results as it stands, and with the reserve.
  const k = r ? (a.combats || []).findIndex((c) => c.index === r.combat) : -1;
  const combat = k >= 0 ? a.combats[k] : null;
  const results = (label, key, list) =>
    list
      ? pLine(
          label,
          list
            .map((x, i) => [x.loser ? `${names[x.loser] || x.loser} ${x.result}` : 'even', `${key}[${i}].p`, x.p])
            .filter(([, , p]) => p && p.decimal > 0),
        )
      : null;
  return h(
    'ul',
    { class: 'odds-list plain' },
    combat ? results(`Combat ${combat.index + 1} now`, `combats[${k}].results`, combat.results) : null,
    combat && combat.if_reserve_joins ? results(`Combat ${combat.index + 1} if ${r.unit} joins`, `combats[${k}].if_reserve_joins.results`, combat.if_reserve_joins.results) : null,
    winner('battle', 'Wins the battle now', a.battle),
    winner('battle_if_reserve_joins', r ? `If ${r.unit} joins` : 'With the reserve', a.battle_if_reserve_joins),
  );
}

/** Civilization: the next phase with the wave chosen. */
export function renderCiv(a) {
  const ph = a.phase || {};
  const ht = ph.higher_total || {};
  const af = ph.after || {};
  const name = (side, d) => (ph[side] && ph[side].name) || d;
  return h(
    'ul',
    { class: 'odds-list plain' },
    pLine('Wins the phase (higher total)', [
      [name('attacker', 'attacker'), 'phase.higher_total.attacker', ht.attacker],
      [name('defender', 'defender'), 'phase.higher_total.defender', ht.defender],
      ['equal', 'phase.higher_total.equal', ht.equal],
    ]),
    pLine('After the phase', [
      ['attacker wins', 'phase.after.attacker_wins', af.attacker_wins],
      ['defender wins', 'phase.after.defender_wins', af.defender_wins],
      ['both gone', 'phase.after.both_gone', af.both_gone],
      ['goes on', 'phase.after.goes_on', af.goes_on],
    ]),
  );
}
