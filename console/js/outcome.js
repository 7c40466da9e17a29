// The parts every result shares: the banner that comes first (who won,
// who was eliminated or routed) and one item per unit whose fate is
// marked by how badly it went, so the units that suffered most stand out
// (never greyed out: an elimination is the news).

import { h } from './dom.js';

/**
 * How bad each fate is: `worst` (gone: eliminated, routed, destroyed,
 * ineffective), `hit` (hurt: defeated, failed, beaten, repulsed, lost
 * steps), `ok` (came through), `none` (took no part: a reserve).
 */
export const FATES = {
  eliminated: { label: 'eliminated', severity: 'worst' },
  routed: { label: 'routed', severity: 'worst' },
  destroyed: { label: 'destroyed', severity: 'worst' },
  ineffective: { label: 'ineffective', severity: 'worst' },
  defeated: { label: 'defeated', severity: 'hit' },
  failed: { label: 'failed', severity: 'hit' },
  beaten: { label: 'beaten', severity: 'hit' },
  repulsed: { label: 'repulsed', severity: 'hit' },
  'lost-steps': { label: 'lost steps', severity: 'hit' },
  'not-defeated': { label: 'not defeated', severity: 'ok' },
  passed: { label: 'passed', severity: 'ok' },
  held: { label: 'held', severity: 'ok' },
  survived: { label: 'survived', severity: 'ok' },
  unharmed: { label: 'no step lost', severity: 'ok' },
  reserve: { label: 'in reserve', severity: 'none' },
};

const SEVERITY_ORDER = { worst: 0, hit: 1, ok: 2, none: 3 };

/** A badge naming a fate (its words, coloured by severity). */
export function fateBadge(fate, label) {
  const f = FATES[fate] || { label: fate, severity: 'ok' };
  return h('span', { class: ['fate', `fate-${f.severity}`] }, label || f.label);
}

/**
 * The banner, first thing of a result.
 *   winner:   the winning side's name, or '' (a draw, or no winner in
 *             this system); data-winner carries it for the tests
 *   headline: the sentence in big letters
 *   tone:     'win', 'draw' or 'neutral'
 *   facts:    short lines under it (eliminations, routs, what follows)
 *   fallen:   [{name, side, fate}] units eliminated / routed / destroyed,
 *             listed as chips with data-unit-name
 */
export function resultBanner({ winner = '', headline, tone = 'neutral', facts = [], fallen = [] }) {
  return h(
    'section',
    { class: ['result-banner', `tone-${tone}`], testid: 'result-banner', 'data-winner': winner || '', role: 'status' },
    h('p', { class: 'banner-headline' }, headline),
    fallen.length
      ? h(
          'ul',
          { class: 'banner-fallen', 'aria-label': 'Lost' },
          fallen.map((u) =>
            h(
              'li',
              { testid: 'banner-fallen', 'data-unit-name': u.name, 'data-fate': u.fate },
              h('strong', null, u.name),
              u.side ? ` (${u.side})` : '',
              ' ',
              fateBadge(u.fate),
            ),
          ),
        )
      : null,
    facts.filter(Boolean).length ? h('ul', { class: 'banner-facts' }, facts.filter(Boolean).map((f) => h('li', null, f))) : null,
  );
}

/**
 * One unit's outcome: <li data-testid="unit-outcome" data-unit-name
 * data-side data-fate>, its name and side, a badge for its fate, then
 * `body` (the dice, the score's breakdown, what changed).
 */
export function fateItem({ name, side, fate, label, body }) {
  const f = FATES[fate] || { severity: 'ok' };
  return h(
    'li',
    { class: ['unit-outcome', `sev-${f.severity}`], testid: 'unit-outcome', 'data-unit-name': name, 'data-side': side || '', 'data-fate': fate },
    h('div', { class: 'outcome-head' }, h('strong', { class: 'outcome-name' }, name), side ? h('span', { class: 'outcome-side' }, side) : null, fateBadge(fate, label)),
    body,
  );
}

/** Items sorted worst first (stable): the eliminated lead. */
export function worstFirst(items) {
  return items
    .map((x, i) => [x, i])
    .sort(([a, i], [b, j]) => SEVERITY_ORDER[(FATES[a.fate] || {}).severity || 'ok'] - SEVERITY_ORDER[(FATES[b.fate] || {}).severity || 'ok'] || i - j)
    .map(([x]) => x);
}

/** "Rangers, Guards and Lancers". */
export function names(list) {
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}
