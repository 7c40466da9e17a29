// Where a combat's dice come from: seeded by the service (optionally with a
// client seed, citing the campaign's next commitment) or entered from a
// real table, each form then asking for the dice its system needs.

import { h, field, select, checkbox } from './dom.js';
import { session, onSessionChange } from './session.js';
import { textValue } from './forms.js';

// The source last chosen, the default of the next form (an umpire at a
// real table enters every combat's dice).
let lastSource = 'seeded';

/**
 * fields: the form's FieldMap. onSourceChange(source) is called when the
 * source changes (and once at the start). `battle`: the dice of a battle
 * are entered with its actions, not here. `enteredHint`: where the form
 * asks for entered dice.
 * Answers {el, source(), request()}; request() is the body's `dice`.
 */
export function diceControls({ fields, onSourceChange, battle = false, enteredHint } = {}) {
  const source = select(
    [
      { value: 'seeded', label: 'Seeded by the service (verifiable)' },
      { value: 'entered', label: 'Entered: dice rolled at a real table' },
    ],
    { testid: 'dice-source' },
    lastSource,
  );
  const clientSeed = h('input', {
    type: 'text',
    maxlength: 256,
    testid: 'client-seed',
    autocomplete: 'off',
    placeholder: 'e.g. a phrase the players agreed',
  });
  const cite = checkbox('Cite the next commitment, so these dice use exactly the seed promised', {
    testid: 'cite-commitment',
    checked: true,
  });
  const commitment = h('code', { class: 'hash', testid: 'cited-commitment' });

  const seededPart = h(
    'div',
    { class: 'dice-seeded' },
    field('Client seed (optional)', clientSeed, 'Mixed into the dice, so they also depend on something the players chose.'),
    cite.el,
    h('p', { class: 'hint' }, 'Commitment: ', commitment),
  );
  const enteredPart = h(
    'p',
    { class: 'hint dice-entered', hidden: true },
    `${battle ? 'Each action of the battle asks for its dice.' : enteredHint || 'Type each die.'} Entered dice are an honest record, not something the players can verify.`,
  );

  fields.set('dice.source', source);
  fields.set('dice.client_seed', clientSeed);
  fields.set('dice.commitment', cite.input);
  fields.set('dice', source);

  const showCommitment = () => {
    commitment.textContent = session.campaign ? session.campaign.next_commitment : '';
  };
  showCommitment();
  const stop = onSessionChange(() => {
    if (!el.isConnected) {
      stop();
      return;
    }
    showCommitment();
  });

  const el = h('fieldset', { class: 'dice' }, h('legend', null, 'Dice'), field('Dice source', source), seededPart, enteredPart);

  const changed = () => {
    lastSource = source.value;
    const entered = source.value === 'entered';
    seededPart.hidden = entered;
    enteredPart.hidden = !entered;
    if (onSourceChange) onSourceChange(source.value);
  };
  source.addEventListener('change', changed);
  queueMicrotask(changed);

  return {
    el,
    source: () => source.value,
    request() {
      if (source.value === 'entered') return { source: 'entered' };
      const dice = { source: 'seeded' };
      const cs = textValue(clientSeed);
      if (cs) dice.client_seed = cs;
      if (cite.input.checked && session.campaign) dice.commitment = session.campaign.next_commitment;
      return dice;
    },
  };
}

/** A die input: <input data-testid="die-input"> of 1..faces. */
export function dieInput(faces, props = {}) {
  return h('input', {
    type: 'number',
    inputmode: 'numeric',
    min: 1,
    max: faces,
    step: 1,
    class: 'die',
    testid: 'die-input',
    required: true,
    ...props,
  });
}
