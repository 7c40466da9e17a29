// Dice drawn as dice, and scores drawn as sums: what a player reads first
// in a result. Plain elements and classes (style.css draws the pips), so
// the strict CSP (no inline style) holds.
//
//   dieFace(4)                 a d6 showing four pips
//   dieFace(7, 10)             a d10: the number in a die-shaped box
//   breakdown(4, [{value: -1, label: 'quality'}, {value: 1, label: 'reserve'}], 4)
//                              [4] − 1 quality + 1 reserve = 4

import { h } from './dom.js';

// Which of the nine cells of a 3×3 grid hold a pip, for 1 to 6.
const PIPS = {
  1: [5],
  2: [3, 7],
  3: [3, 5, 7],
  4: [1, 3, 7, 9],
  5: [1, 3, 5, 7, 9],
  6: [1, 3, 4, 6, 7, 9],
};

/**
 * One die. A d6 (faces 6, a value 1..6) gets pips; any other die its
 * number. The highest face is marked `die-max`, a 1 `die-min`, so a 6 and
 * a 1 stand out. props are added to the element (a testid, say).
 */
export function dieFace(value, faces = 6, props = {}) {
  const n = Number(value);
  const cls = ['die-face', n === faces && 'die-max', n === 1 && 'die-min', faces === 6 && PIPS[n] ? 'd6' : 'dn'];
  const label = `d${faces} showing ${value}`;
  const el = h('span', { class: cls, role: 'img', 'aria-label': label, title: label, 'data-value': value, 'data-faces': faces, ...props });
  if (faces === 6 && PIPS[n]) {
    for (const cell of PIPS[n]) el.append(h('span', { class: ['pip', `pip-${cell}`], 'aria-hidden': 'true' }));
  } else {
    el.append(h('span', { class: 'die-number', 'aria-hidden': 'true' }, String(value)));
  }
  return el;
}

/** Several dice in a row, each optionally captioned (the unit that threw it). */
export function diceRow(dice, faces = 6) {
  return h(
    'span',
    { class: 'dice-faces' },
    dice.map((d) => {
      const item = typeof d === 'object' ? d : { value: d };
      const face = dieFace(item.value, item.faces || faces);
      return item.caption ? h('span', { class: 'die-captioned' }, face, h('small', null, item.caption)) : face;
    }),
  );
}

const MINUS = '\u2212';

/** "+1", "−2" (a real minus sign, as a reader expects it). */
export function signedTerm(n) {
  return n < 0 ? `${MINUS}${-n}` : `+${n}`;
}

/**
 * A score as a sum: the natural die, each modifier with what it is, and
 * the score. Zero terms are left out. `natural` is a number (drawn as a
 * die of `faces`), an element (already drawn: several dice, say) or null
 * (no die: a sum of terms only). `note` says why the score is not the sum
 * (held at a cap or floor). The whole reads aloud as a sentence.
 */
export function breakdown(natural, terms, score, { faces = 6, note = null, naturalLabel = null } = {}) {
  const parts = [];
  if (typeof natural === 'number') parts.push(dieFace(natural, faces));
  else if (natural) parts.push(natural);
  if (naturalLabel) parts.push(h('span', { class: 'term-label' }, naturalLabel));
  for (const t of terms) {
    if (!t || !t.value) continue;
    parts.push(
      h(
        'span',
        { class: ['term', t.value < 0 ? 'term-minus' : 'term-plus'] },
        h('span', { class: 'term-value' }, `${t.value < 0 ? MINUS : '+'} ${Math.abs(t.value)}`),
        ' ',
        h('span', { class: 'term-label' }, t.label),
      ),
    );
  }
  parts.push(h('span', { class: 'term-equals' }, '='), h('strong', { class: 'term-score' }, String(score)));
  if (note) parts.push(h('span', { class: 'term-note' }, note));
  return h('span', { class: 'breakdown', testid: 'score-breakdown', 'data-score': score }, parts);
}
