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
  const left = c.steps_left ?? c.steps - c.steps_lost;
  parts.push(`${left} of ${c.steps} step${c.steps === 1 ? '' : 's'} left`);
  if (c.side_shown && left > 0) parts.push(`shows ${c.side_shown}`);
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
  parts.push(`${u.steps - u.steps_lost} of ${u.steps} step${u.steps === 1 ? '' : 's'} left`);
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

// How each field of a unit's state is named in a history, and how its
// values read. Fields left out here are said by another line (steps_lost
// by steps_left, eliminated_reason with eliminated) or shown as they are.
const yesNo = (v) => (v ? 'yes' : 'no');
const FIELD_WORDS = {
  name: ['Name', String],
  'scrud.quality': ['SCRUD quality', signed],
  'scrud.faces': ['SCRUD die', (v) => `d${v}`],
  'scrud.defeat_penalty': ['SCRUD defeat penalty', String],
  'scrud.fatigue_penalty': ['SCRUD fatigue penalty', String],
  'scrud.modifier': ['SCRUD modifier', signed],
  'edna.edna': ['EDNA', String],
  'edna.start': ['EDNA start', String],
  'scs.attack': ['SCS attack', (v) => (v === null ? 'none' : String(v))],
  'scs.defense': ['SCS defense', String],
  'scs.movement': ['SCS movement', String],
  'scs.steps': ['SCS steps', String],
  'scs.steps_left': ['SCS steps left', String],
  'scs.exploit_capable': ['SCS exploit capable', yesNo],
  'scs.reduced.attack': ['SCS reduced attack', (v) => (v === null ? 'none' : String(v))],
  'scs.reduced.defense': ['SCS reduced defense', String],
  'scs.reduced.movement': ['SCS reduced movement', String],
  'matrix.quality': ['Matrix quality', signed],
  'civ.class': ['Civilization class', String],
  'civ.era': ['Civilization era', (v) => `${v} (${ERAS[v] || '?'})`],
  'civ.bonus': ['Civilization bonus', signed],
  'civ.dice_multiplier': ['Civilization dice ×', String],
};
const SAID_ELSEWHERE = new Set(['eliminated_reason', 'scs.steps_lost', 'systems', 'side_id', 'eliminated', 'edna.ineffective', 'scs.out_of_supply', 'scs.side_shown', 'scs.reduced']);

/**
 * What changed between two states of a unit, in words a player reads:
 * ['Eliminated: lost its last step', 'SCS steps left 1 → 0', ...].
 * sideName(id) names a side.
 */
export function changes(before, after, sideName = (id) => id) {
  const b = before || {};
  const a = after || {};
  const out = [];
  if (b.eliminated !== a.eliminated) {
    out.push(a.eliminated ? `Eliminated: ${ELIMINATED_REASONS[a.eliminated_reason] || a.eliminated_reason || 'no reason given'}` : 'Back in play');
  } else if (a.eliminated && b.eliminated_reason !== a.eliminated_reason) {
    out.push(`Eliminated: ${ELIMINATED_REASONS[a.eliminated_reason] || a.eliminated_reason}`);
  }
  if (b.side_id !== a.side_id && b.side_id !== undefined) out.push(`Side ${sideName(b.side_id)} → ${sideName(a.side_id)}`);
  const sysB = b.systems || [];
  const sysA = a.systems || [];
  const added = sysA.filter((x) => !sysB.includes(x));
  const removed = sysB.filter((x) => !sysA.includes(x));
  if (added.length) out.push(`Now carries ${added.map(systemTitle).join(', ')}`);
  if (removed.length) out.push(`No longer carries ${removed.map(systemTitle).join(', ')}`);
  if (b.edna && a.edna && b.edna.ineffective !== a.edna.ineffective) out.push(a.edna.ineffective ? 'EDNA: ineffective (EDNA 0)' : 'EDNA: effective again');
  if (b.scs && a.scs) {
    if (b.scs.out_of_supply !== a.scs.out_of_supply) out.push(a.scs.out_of_supply ? 'SCS: out of supply' : 'SCS: back in supply');
    // The side shown follows the steps: said only while the counter stands.
    if (b.scs.side_shown !== a.scs.side_shown && a.scs.steps_left !== 0) out.push(`SCS: shows its ${a.scs.side_shown} side`);
    if (Boolean(b.scs.reduced) !== Boolean(a.scs.reduced)) out.push(a.scs.reduced ? 'SCS: now has a reduced side' : 'SCS: no reduced side any more');
  }
  const fb = flatten(b);
  const fa = flatten(a);
  for (const k of new Set([...Object.keys(fb), ...Object.keys(fa)])) {
    if (JSON.stringify(fb[k]) === JSON.stringify(fa[k])) continue;
    if (SAID_ELSEWHERE.has(k) || [...SAID_ELSEWHERE].some((p) => k.startsWith(`${p}.`) && !FIELD_WORDS[k])) continue;
    if (fb[k] === undefined || fa[k] === undefined) continue; // a system added or removed: said above
    const [label, fmt] = FIELD_WORDS[k] || [k.replace(/[._]/g, ' '), (v) => (v === null ? 'none' : String(v))];
    out.push(`${label} ${fmt(fb[k])} → ${fmt(fa[k])}`);
  }
  return out;
}
