// An EDNA test's result for people (docs/rules/edna.md): no winner (a
// morale test), a banner saying who failed and who is now ineffective,
// then each unit's dice, modifier and total against its EDNA.

import { h, plural } from './dom.js';
import { breakdown, diceRow } from './dicefaces.js';
import { resultBanner, fateItem, worstFirst } from './outcome.js';

/** A test's fate: ineffective, failed or passed. */
export function ednaFate(t) {
  if (t.ineffective) return 'ineffective';
  return t.passed ? 'passed' : 'failed';
}

/** sideOf: unit id → side name (the report names no side), optional. */
export function ednaView(r, { sideOf = null } = {}) {
  const side = (t) => (sideOf && sideOf.get(t.unit_id)) || '';
  const failed = r.tests.filter((t) => !t.passed);
  const out = r.tests.filter((t) => t.ineffective);
  const headline = failed.length
    ? `${failed.length} of ${plural(r.tests.length, 'unit')} failed ${r.tests.length === 1 ? 'its' : 'their'} test`
    : `Every unit passed (${plural(r.tests.length, 'unit')} tested)`;
  const items = worstFirst(r.tests.map((t) => ({ t, fate: ednaFate(t) }))).map(({ t, fate }) =>
    fateItem({
      name: t.unit,
      side: side(t),
      fate,
      body: [
        h(
          'p',
          { class: 'score-line' },
          breakdown(diceRow(t.naturals, r.options.faces), [{ value: t.modifier, label: 'modifier' }], t.total, {
            naturalLabel: `rolled ${t.naturals.join(' + ')}`,
            note: `against EDNA ${t.edna_before}`,
          }),
        ),
        h(
          'p',
          { class: 'after' },
          t.passed
            ? `passed: EDNA stays ${t.edna_after}`
            : `failed by ${t.total - t.edna_before}: EDNA ${t.edna_before} → ${t.edna_after}${t.ineffective ? ': ineffective until rallied' : ''}`,
        ),
      ],
    }),
  );
  return [
    resultBanner({
      winner: '',
      tone: failed.length ? 'neutral' : 'win',
      headline,
      fallen: out.map((t) => ({ name: t.unit, side: side(t), fate: 'ineffective' })),
      facts: [
        ...failed.filter((t) => !t.ineffective).map((t) => `${t.unit}${side(t) ? ` (${side(t)})` : ''}: EDNA ${t.edna_before} → ${t.edna_after}`),
        `Each test: ${r.options.dice}d${r.options.faces} plus its modifier; a total above the unit's EDNA takes the excess off it.`,
      ],
    }),
    h('ul', { class: 'unit-outcomes' }, items),
  ];
}
