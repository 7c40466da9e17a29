// Words for the service's documents: a unit's state per system, a unit's
// part in a combat, the dice of a report. Plain strings, put into text nodes.

import { signed } from './dom.js';

export const SYSTEM_TITLES = {
  scrud: 'SCRUD',
  edna: 'EDNA',
  scs: 'SCS',
  matrix: 'Matrix',
  civ: 'Civilization',
};

export const ELIMINATED_REASONS = {
  threshold: 'modifier below the threshold',
  three_defeats: 'losses for defeats',
  steps: 'lost its last step',
  routed: 'routed in a Matrix battle',
  destroyed: 'destroyed in a Civilization battle',
  correction: "the umpire's correction",
};

export const ERAS = { 1: 'ancient', 2: 'medieval', 3: 'gunpowder', 4: 'modern' };

export function systemTitle(s) {
  return SYSTEM_TITLES[s] || s;
}

/** One line per system section of a unit (or of a history state). */
export function scrudText(s) {
  const parts = [`quality ${signed(s.quality)}`, `d${s.faces}`];
  if (s.defeat_penalty) parts.push(`defeat penalty ${s.defeat_penalty}`);
  if (s.fatigue_penalty) parts.push(`fatigue penalty ${s.fatigue_penalty}`);
  parts.push(`modifier ${signed(s.modifier)}`);
  return parts.join(', ');
}

export function ednaText(e) {
  return `EDNA ${e.edna} of ${e.start}${e.ineffective ? ' (ineffective)' : ''}`;
}

function scsSideText(side) {
  const attack = side.attack === null ? '–' : side.attack;
  return `${attack}-${side.defense}-${side.movement ?? 0}`;
}

export function scsText(c) {
  const parts = [`full ${scsSideText(c)}`];
  if (c.reduced) parts.push(`reduced ${scsSideText(c.reduced)}`);
  parts.push(`${c.steps_left ?? c.steps - c.steps_lost} of ${c.steps} steps left`);
  if (c.side_shown) parts.push(`shows ${c.side_shown}`);
  if (c.exploit_capable) parts.push('exploit capable');
  if (c.out_of_supply) parts.push('out of supply');
  return parts.join(', ');
}

export function matrixText(m) {
  return `quality ${signed(m.quality)}`;
}

export function civText(c) {
  const parts = [c.class, `era ${c.era} (${ERAS[c.era] || '?'})`, `bonus ${signed(c.bonus)}`];
  if (c.class === 'aircraft' && c.dice_multiplier) parts.push(`dice ×${c.dice_multiplier}`);
  return parts.join(', ');
}

const SECTION_TEXT = { scrud: scrudText, edna: ednaText, scs: scsText, matrix: matrixText, civ: civText };

/** [[system, text]] for every system a unit (or a state) carries. */
export function systemLines(unit) {
  const systems = unit.systems || Object.keys(SECTION_TEXT).filter((s) => unit[s]);
  return systems.filter((s) => unit[s]).map((s) => [s, SECTION_TEXT[s](unit[s])]);
}

export function statusText(unit) {
  if (!unit.eliminated) {
    if (unit.edna && unit.edna.ineffective) return 'in play, ineffective (EDNA 0)';
    return 'in play';
  }
  const why = ELIMINATED_REASONS[unit.eliminated_reason] || unit.eliminated_reason;
  return why ? `eliminated: ${why}` : 'eliminated';
}

/** A SCRUD report unit's fate, as the Markdown report words it. */
export function scrudUnitOutcome(u) {
  const parts = [];
  const rolled = u.reserve ? `reserve, rolled ${u.natural}` : `rolled ${u.natural}, score ${u.score}`;
  parts.push(u.defeats ? `defeated${u.defeats > 1 ? ` ${u.defeats} times` : ''}` : 'not defeated');
  if (u.heavy_fighting) parts.push('heavy fighting');
  if (u.before.defeat_penalty !== u.after.defeat_penalty) {
    parts.push(`defeat penalty ${u.before.defeat_penalty} → ${u.after.defeat_penalty}`);
  }
  if (u.before.fatigue_penalty !== u.after.fatigue_penalty) {
    parts.push(`fatigue penalty ${u.before.fatigue_penalty} → ${u.after.fatigue_penalty}`);
  }
  parts.push(
    u.before.modifier !== u.after.modifier
      ? `modifier ${signed(u.before.modifier)} → ${signed(u.after.modifier)}`
      : `modifier stays ${signed(u.after.modifier)}`,
  );
  if (u.eliminated) parts.push(`ELIMINATED (${ELIMINATED_REASONS[u.eliminated] || u.eliminated})`);
  return { rolled, text: parts.join('; ') };
}

/** An EDNA test's outcome. */
export function ednaTestOutcome(t) {
  const dice = t.naturals.join(' + ');
  const mod = t.modifier ? ` ${t.modifier > 0 ? '+' : '−'} ${Math.abs(t.modifier)}` : '';
  const verdict = t.passed
    ? 'passed'
    : `failed, EDNA ${t.edna_before} → ${t.edna_after}${t.ineffective ? ', INEFFECTIVE' : ''}`;
  return `${dice}${mod} = ${t.total} against EDNA ${t.edna_before}: ${verdict}`;
}

/** An SCS report unit's fate. */
export function scsUnitOutcome(u) {
  const parts = [`${u.role}, ${u.side_shown} side, strength ${u.strength}`];
  if (u.multipliers && u.multipliers.length) parts.push(`× ${u.multipliers.join(' × ')} = ${u.value.decimal}`);
  parts.push(u.lost ? `lost ${u.lost} step${u.lost > 1 ? 's' : ''}` : 'no step lost');
  parts.push(`${u.steps - u.steps_lost} of ${u.steps} steps left`);
  if (u.eliminated) parts.push('ELIMINATED');
  if (u.advance_hexes) parts.push(`may advance ${u.advance_hexes} hex${u.advance_hexes > 1 ? 'es' : ''}`);
  return parts.join('; ');
}

/** A unit's part in a combat, from its history event's `result`. */
export function historyResultText(r) {
  if (!r) return '';
  switch (r.system) {
    case 'scrud': {
      const o = scrudUnitOutcome(r);
      return `SCRUD (${r.side}): ${o.rolled}; ${o.text}`;
    }
    case 'edna':
      return `EDNA test: ${ednaTestOutcome(r)}`;
    case 'scs':
      return `SCS: ${scsUnitOutcome(r)}`;
    case 'matrix':
      return `Matrix battle (${r.army}): ${r.result === 'none' ? 'its combat did not go against it' : r.result}, ${r.casualty_points} casualty point${r.casualty_points === 1 ? '' : 's'}`;
    case 'civ':
      return `Civilization battle (${r.army}): ${r.destroyed ? 'DESTROYED' : 'survived'}`;
    default:
      return r.system || '';
  }
}

/** How a report's dice came about, in a sentence. */
export function diceText(d) {
  if (!d) return '';
  if (d.source === 'entered') return 'Entered by the umpire from a real table: recorded, not verifiable.';
  const seed = d.server_seed ? 'seed revealed' : 'seed still secret';
  const client = d.client_seed ? `, client seed “${d.client_seed}”` : '';
  return `Seeded by the service (rng ${d.rng || 'v1'})${client}, ${seed}.`;
}

/** Flatten a document into dotted keys: {a: {b: 1}} → {'a.b': 1}. */
export function flatten(obj, prefix = '', out = {}) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    out[prefix] = obj;
    return out;
  }
  for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** What changed between two states: ['scrud.defeat_penalty: 0 → 1', ...]. */
export function changes(before, after) {
  const a = flatten(before || {});
  const b = flatten(after || {});
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out = [];
  const show = (v) => (v === undefined ? '–' : JSON.stringify(v));
  for (const k of keys) {
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.push(`${k}: ${show(a[k])} → ${show(b[k])}`);
  }
  return out;
}
