// results.test.mjs: the console's readings that need no browser, with
// node's own test runner (run.sh runs it with verify.test.mjs, before
// installing anything): who wins and each unit's fate per system, the
// words of a unit's history, where a results table's problem points, and
// what the share page says of an answer it cannot check.
// The browser flows (flows-results.mjs, flows-tables.mjs) check the same
// against the service; these pin the edge cases down.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { scrudWinner, scrudFate } from '../../console/js/result-scrud.js';
import { ednaFate } from '../../console/js/result-edna.js';
import { scsWinner, scsFate } from '../../console/js/result-scs.js';
import { matrixWinner, matrixFate } from '../../console/js/result-matrix.js';
import { civWinner, civFate } from '../../console/js/result-civ.js';
import { changes } from '../../console/js/format.js';
import { parseCellField, rollKeys } from '../../console/js/table-editor.js';
import { cellClass } from '../../console/js/tables.js';
import { shareFailure, cutShort } from '../../console/js/share-answer.js';

test('SCRUD: fewer defeats wins, equal is even; fates', () => {
  const side = (name, d) => ({ name, defeats_suffered: d, units: [] });
  assert.equal(scrudWinner({ sides: [side('russian', 0), side('german', 1)] }), 'russian');
  assert.equal(scrudWinner({ sides: [side('russian', 2), side('german', 1)] }), 'german');
  assert.equal(scrudWinner({ sides: [side('russian', 1), side('german', 1)] }), '');
  assert.equal(scrudFate({ reserve: true, eliminated: null, defeats: 0 }), 'reserve');
  assert.equal(scrudFate({ reserve: false, eliminated: 'threshold', defeats: 1 }), 'eliminated');
  assert.equal(scrudFate({ reserve: false, eliminated: null, defeats: 2 }), 'defeated');
  assert.equal(scrudFate({ reserve: false, eliminated: null, defeats: 0 }), 'not-defeated');
});

test('EDNA: ineffective before failed before passed', () => {
  assert.equal(ednaFate({ passed: false, ineffective: true }), 'ineffective');
  assert.equal(ednaFate({ passed: false, ineffective: false }), 'failed');
  assert.equal(ednaFate({ passed: true, ineffective: false }), 'passed');
});

test('SCS: a vacated hex goes to the attacker, else fewer steps lost', () => {
  const u = (side, lost, eliminated = false) => ({ side, lost, eliminated });
  // D1r2, one step converted: the defender still retreats, the hex is vacated.
  assert.equal(scsWinner({ attackers: [u('russian', 0)], defenders: [u('german', 2)], hex_vacated: true }), 'russian');
  // A1: the defender holds and the attacker lost a step.
  assert.equal(scsWinner({ attackers: [u('russian', 1)], defenders: [u('german', 0)], hex_vacated: false }), 'german');
  // A1 D1, nobody moves: no winner.
  assert.equal(scsWinner({ attackers: [u('russian', 1)], defenders: [u('german', 1)], hex_vacated: false }), '');
  // Every attacker gone: a vacated hex is nobody's.
  assert.equal(scsWinner({ attackers: [u('russian', 1, true)], defenders: [u('german', 1, true)], hex_vacated: true }), '');
  assert.equal(scsFate(u('german', 2, true)), 'eliminated');
  assert.equal(scsFate(u('german', 2)), 'lost-steps');
  assert.equal(scsFate(u('german', 0)), 'unharmed');
});

test('Matrix and Civilization: the battle names its winner army, shown as its side', () => {
  const setup = { attacker: { name: 'russian', units: [] }, defender: { name: 'german', units: [] } };
  assert.equal(matrixWinner({ setup, result: { winner: 'defender' } }), 'german');
  assert.equal(matrixWinner({ setup, result: { winner: null } }), '');
  assert.equal(matrixWinner({ input: { setup }, result: { winner: 'attacker' } }), 'russian');
  assert.equal(matrixFate(null), 'held');
  assert.equal(matrixFate('routed'), 'routed');
  assert.equal(civWinner({ setup, over: true, winner: 'attacker' }), 'russian');
  assert.equal(civWinner({ setup, over: true, winner: null, unresolved: true }), '');
  assert.equal(civWinner({ setup, over: false, winner: null }), '');
  const b = { survivors: { attacker: ['A'], defender: [] } };
  assert.equal(civFate(b, 'attacker', 'A'), 'survived');
  assert.equal(civFate(b, 'defender', 'D'), 'destroyed');
});

test("a unit's history in words, not fields", () => {
  const before = {
    name: 'Lancers', side_id: 'sd_1', eliminated: false, eliminated_reason: null, systems: ['scrud', 'scs'],
    scrud: { quality: 0, faces: 6, defeat_penalty: 0, fatigue_penalty: 0, modifier: 0 },
    scs: { attack: 2, defense: 1, movement: 0, reduced: null, steps: 1, steps_lost: 0, steps_left: 1, side_shown: 'full', exploit_capable: false, out_of_supply: false },
  };
  const after = structuredClone(before);
  after.eliminated = true;
  after.eliminated_reason = 'steps';
  after.scs.steps_lost = 1;
  after.scs.steps_left = 0;
  after.scs.side_shown = 'reduced';
  after.scrud.defeat_penalty = 1;
  after.scrud.modifier = -1;
  const lines = changes(before, after);
  assert.deepEqual(lines, [
    'Eliminated: lost its last step',
    'SCRUD defeat penalty 0 → 1',
    'SCRUD modifier 0 → -1',
    'SCS steps left 1 → 0',
  ]);
  for (const l of lines) assert.doesNotMatch(l, /_|null|"/);
  // A correction back into play, another side, a flip while it stands.
  const back = structuredClone(before);
  back.side_id = 'sd_2';
  back.scs.out_of_supply = true;
  assert.deepEqual(changes(after, back, (id) => ({ sd_1: 'north', sd_2: 'south' })[id]), [
    'Back in play',
    'Side north → south',
    'SCS: out of supply',
    'SCS: shows its full side',
    'SCRUD defeat penalty 1 → 0',
    'SCRUD modifier -1 → 0',
    'SCS steps left 0 → 1',
  ]);
});

test("a results table's problem points at its cell", () => {
  assert.deepEqual(parseCellField('rows.7[3]'), ['7', 3]);
  assert.deepEqual(parseCellField('table.rows.11[0]'), ['11', 0]);
  assert.deepEqual(parseCellField('rows[2].cells[3]'), ['2', 3]);
  assert.deepEqual(parseCellField('rows[12][1]'), ['12', 1]);
  assert.deepEqual(parseCellField('rows.9'), ['9', null]);
  assert.equal(parseCellField('columns[1]'), null);
  assert.equal(parseCellField('roll'), null);
  assert.equal(parseCellField(null), null);
});

test('the rows of a roll kind, and the colour of a cell', () => {
  assert.deepEqual(rollKeys('2d6'), ['2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
  const d66 = rollKeys('d66');
  assert.equal(d66.length, 36);
  assert.deepEqual([d66[0], d66[5], d66[6], d66[35]], ['11', '16', '21', '66']);
  assert.equal(cellClass('A1r1'), 'cell-att');
  assert.equal(cellClass('D2r2'), 'cell-def');
  assert.equal(cellClass('A1 D1'), 'cell-both');
  assert.equal(cellClass('A1/D1r1'), 'cell-both');
  assert.equal(cellClass('-'), 'cell-none');
});

test('share page: what a failed answer says', () => {
  assert.equal(shareFailure(404, null).title, 'This link does not work');
  const busy = shareFailure(429, '5');
  assert.equal(busy.title, 'The service is busy');
  assert.match(busy.detail, /in 5 seconds\./);
  assert.match(shareFailure(503, '1').detail, /in 1 second\./);
  assert.match(shareFailure(503, null).detail, /in a moment\./);
  assert.match(shareFailure(503, 'soon').detail, /in a moment\./);
  assert.equal(shareFailure(500, null).detail, 'The service answered 500.');
  assert.match(cutShort('Unexpected end of JSON input').detail,
    /stopped short \(Unexpected end of JSON input\)/);
});
