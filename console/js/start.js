// #/new, the start page: create a campaign (POST /v1/campaigns, no token
// needed) with its sides and its options, then show its tokens once, each
// with Copy and all of them as a file, and sign in as its umpire.
//
// Only the options changed from the service's defaults are sent, so a
// campaign made here is the same as one made with the API and no options.

import { h, replace, field, select, numberInput, checkbox, announce, timeEl } from './dom.js';
import { sendJSON } from './api.js';
import { signIn } from './session.js';
import { FieldMap, FormError, onSubmit, actions, intValue, textValue } from './forms.js';
import { secretLine, downloadSecretsButton, fileSlug } from './secrets.js';

// The service's defaults (api-spec: ScrudOptions, CampaignEdnaOptions, ScsOptions).
const DEFAULTS = {
  scrud: { cap: 'faces', floor: 1, extra_dice: 'beat_lowest', attrition: true, max_penalty_per_combat: 1, eliminate_below: -2, defeats_per_elimination: 3 },
  edna: { start: 8, dice: 2, faces: 6 },
  scs: { attack: '1', defense: '1' },
};
const MAX_SIDES = 16;

export function renderStart(view, { onSignedIn } = {}) {
  view.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Sign in'), ' / a new campaign'),
    h('h1', null, 'Start a campaign'),
  );
  const area = h('div');
  view.append(area);
  area.append(campaignForm((created) => replace(area, createdPanel(created, onSignedIn))));
}

function campaignForm(done) {
  const fields = new FieldMap();
  const name = h('input', { type: 'text', testid: 'new-name', maxlength: 64, required: true, autocomplete: 'off', placeholder: 'e.g. Tannenberg 1914' });
  fields.set('name', name);

  // The sides: a list of name inputs, two to start with.
  const sideList = h('ol', { class: 'side-inputs' });
  const sideInputs = [];
  function addSide(value = '') {
    if (sideInputs.length >= MAX_SIDES) return;
    const input = h('input', { type: 'text', maxlength: 64, autocomplete: 'off', testid: 'new-side-name', value, 'aria-label': `Side ${sideInputs.length + 1}` });
    const remove = h('button', { type: 'button', class: 'button-small button-quiet', testid: 'new-side-remove', 'aria-label': 'Remove this side' }, 'Remove');
    const li = h('li', null, input, remove);
    remove.addEventListener('click', () => {
      if (sideInputs.length <= 1) return;
      sideInputs.splice(sideInputs.indexOf(input), 1);
      li.remove();
      renumber();
    });
    sideInputs.push(input);
    sideList.append(li);
    renumber();
    return input;
  }
  function renumber() {
    sideInputs.forEach((input, i) => {
      input.dataset.index = String(i);
      input.setAttribute('aria-label', `Side ${i + 1}`);
      input.closest('li').querySelector('button').hidden = sideInputs.length <= 1;
    });
    addBtn.disabled = sideInputs.length >= MAX_SIDES;
  }
  const addBtn = h('button', { type: 'button', class: 'button-small', testid: 'new-side-add' }, 'Add a side');
  addBtn.addEventListener('click', () => addSide().focus());
  addSide();
  addSide();

  const opts = optionFields(fields);
  const form = h(
    'form',
    { class: 'card', novalidate: true, testid: 'new-campaign-form' },
    h('p', null, 'A campaign has an umpire, who runs it, and sides, whose players read it. Each gets a token; the service keeps only their hashes, so they are shown once, right after this.'),
    field('Campaign name', name),
    h('fieldset', null, h('legend', null, 'Sides'), h('p', { class: 'hint' }, 'One to sixteen, each with a name of its own (russian, german…).'), sideList, h('div', { class: 'actions' }, addBtn)),
    opts.el,
    actions(h('button', { type: 'submit', class: 'primary', testid: 'new-submit' }, 'Create the campaign')),
  );

  onSubmit(form, fields, async () => {
    const body = { name: textValue(name) };
    if (!body.name) throw new FormError('Name the campaign.', name);
    const names = sideInputs.map((i) => textValue(i));
    body.sides = [];
    names.forEach((n, i) => {
      if (!n) throw new FormError(`Name side ${i + 1}, or remove it.`, sideInputs[i]);
      if (names.indexOf(n) !== i) throw new FormError(`Two sides are called ${n}.`, sideInputs[i]);
      fields.set(`sides[${i}].name`, sideInputs[i]);
      fields.set(`sides[${i}]`, sideInputs[i]);
      body.sides.push({ name: n });
    });
    fields.set('sides', sideInputs[0]);
    const options = opts.value();
    if (options) body.options = options;
    const created = await sendJSON('POST', '/v1/campaigns', body, { anonymous: true });
    announce(`Campaign ${created.name} created. Keep its tokens now: they are shown only once.`);
    done(created);
  });
  return form;
}

/** The options, each prefilled with the service's default. */
function optionFields(fields) {
  const d = DEFAULTS;
  const ednaStart = numberInput({ min: 1, max: 100, value: d.edna.start, testid: 'new-edna-start' });
  const ednaDice = numberInput({ min: 1, max: 10, value: d.edna.dice, testid: 'new-edna-dice' });
  const ednaFaces = numberInput({ min: 2, max: 1000, value: d.edna.faces, testid: 'new-edna-faces' });
  fields.set('options.edna.start', ednaStart);
  fields.set('options.edna.dice', ednaDice);
  fields.set('options.edna.faces', ednaFaces);
  fields.set('options.edna', ednaStart);

  const capKind = select(
    [
      { value: 'faces', label: "the unit's die faces" },
      { value: 'fixed', label: 'a fixed number' },
      { value: 'none', label: 'none' },
    ],
    { testid: 'new-scrud-cap-kind' },
    'faces',
  );
  const capValue = numberInput({ min: -100, max: 1100, value: 6, testid: 'new-scrud-cap' });
  const capField = field('Fixed cap', capValue);
  capField.hidden = true;
  capKind.addEventListener('change', () => {
    capField.hidden = capKind.value !== 'fixed';
  });
  const floor = numberInput({ min: -100, max: 100, value: d.scrud.floor, testid: 'new-scrud-floor' });
  const extra = select(
    [
      { value: 'beat_lowest', label: 'beat the lowest' },
      { value: 'ignore', label: 'ignored' },
      { value: 'half', label: 'defeat on more than half the faces' },
    ],
    { testid: 'new-scrud-extra-dice' },
    d.scrud.extra_dice,
  );
  const attrition = checkbox('Attrition: defeats and heavy fighting leave lasting penalties', { checked: d.scrud.attrition, testid: 'new-scrud-attrition' });
  const maxPen = numberInput({ min: 0, max: 2, value: d.scrud.max_penalty_per_combat, testid: 'new-scrud-max-penalty' });
  const elimBelow = numberInput({ min: -100, max: 100, value: d.scrud.eliminate_below, testid: 'new-scrud-eliminate-below' });
  const perElim = numberInput({ min: 0, max: 100, value: d.scrud.defeats_per_elimination, testid: 'new-scrud-defeats-per-elimination' });
  for (const [k, el] of [
    ['cap', capKind],
    ['floor', floor],
    ['extra_dice', extra],
    ['attrition', attrition.input],
    ['max_penalty_per_combat', maxPen],
    ['eliminate_below', elimBelow],
    ['defeats_per_elimination', perElim],
  ]) {
    fields.set(`options.scrud.${k}`, el);
  }
  fields.set('options.scrud', capKind);

  const oosAttack = h('input', { type: 'text', class: 'small', value: d.scs.attack, testid: 'new-scs-oos-attack', autocomplete: 'off' });
  const oosDefense = h('input', { type: 'text', class: 'small', value: d.scs.defense, testid: 'new-scs-oos-defense', autocomplete: 'off' });
  fields.set('options.scs.out_of_supply.attack', oosAttack);
  fields.set('options.scs.out_of_supply.defense', oosDefense);
  fields.set('options.scs', oosAttack);

  const fogOn = checkbox('Fog of war: players see other sides’ units only as far as set here', { testid: 'new-fog-enabled' });
  const fogOthers = select(
    [
      { value: 'status', label: 'name, side and whether eliminated' },
      { value: 'name', label: 'name and side only' },
      { value: 'hidden', label: 'nothing: hidden' },
      { value: 'full', label: 'everything' },
    ],
    { testid: 'new-fog-others' },
    'status',
  );
  const fogField = field("Other sides' units show", fogOthers);
  fogField.hidden = true;
  fogOn.input.addEventListener('change', () => {
    fogField.hidden = !fogOn.input.checked;
  });
  fields.set('options.fog.enabled', fogOn.input);
  fields.set('options.fog.others', fogOthers);
  fields.set('options.fog', fogOn.input);
  fields.set('options', ednaStart);

  const el = h(
    'div',
    { class: 'new-options' },
    h(
      'fieldset',
      null,
      h('legend', null, 'EDNA (morale)'),
      h('div', { class: 'row' }, field('Starting EDNA', ednaStart, "A new unit's, unless it is given its own."), field('Dice per test', ednaDice), field('Faces of each die', ednaFaces)),
    ),
    h(
      'details',
      { class: 'options' },
      h('summary', { testid: 'new-scrud-options' }, 'SCRUD options (the defaults suit most campaigns)'),
      h('div', { class: 'row' }, field('Highest score (cap)', capKind), capField, field('Lowest score (floor; empty: none)', floor), field('Unpaired dice', extra)),
      attrition.el,
      h('div', { class: 'row' }, field('Most penalty per combat', maxPen), field('Eliminated below', elimBelow), field('Defeats per extra elimination (0: off)', perElim)),
    ),
    h(
      'details',
      { class: 'options' },
      h('summary', null, 'SCS options'),
      h('p', { class: 'hint' }, 'The multipliers of units marked out of supply, as the game sets them (1: no effect; e.g. 1/2).'),
      h('div', { class: 'row' }, field('Attack out of supply ×', oosAttack), field('Defense out of supply ×', oosDefense)),
    ),
    h('details', { class: 'options' }, h('summary', null, 'Fog of war'), fogOn.el, fogField),
  );

  return {
    el,
    /** The options that differ from the defaults, or null. */
    value() {
      const o = {};
      const edna = {};
      for (const [k, input, label] of [
        ['start', ednaStart, 'Starting EDNA'],
        ['dice', ednaDice, 'Dice per test'],
        ['faces', ednaFaces, 'Faces'],
      ]) {
        const v = intValue(input, label);
        if (v !== undefined && v !== d.edna[k]) edna[k] = v;
      }
      if (Object.keys(edna).length) o.edna = edna;

      const scrud = {};
      const cap = capKind.value === 'faces' ? 'faces' : capKind.value === 'none' ? null : intValue(capValue, 'Fixed cap') ?? 6;
      if (cap !== d.scrud.cap) scrud.cap = cap;
      const fl = intValue(floor, 'Floor') ?? null;
      if (fl !== d.scrud.floor) scrud.floor = fl;
      if (extra.value !== d.scrud.extra_dice) scrud.extra_dice = extra.value;
      if (attrition.input.checked !== d.scrud.attrition) scrud.attrition = attrition.input.checked;
      for (const [k, input, label] of [
        ['max_penalty_per_combat', maxPen, 'Most penalty per combat'],
        ['eliminate_below', elimBelow, 'Eliminated below'],
        ['defeats_per_elimination', perElim, 'Defeats per extra elimination'],
      ]) {
        const v = intValue(input, label);
        if (v !== undefined && v !== d.scrud[k]) scrud[k] = v;
      }
      if (Object.keys(scrud).length) o.scrud = scrud;

      const oos = {};
      for (const [k, input] of [
        ['attack', oosAttack],
        ['defense', oosDefense],
      ]) {
        const v = input.value.trim();
        if (v && v !== d.scs[k]) oos[k] = /^[0-9]+$/.test(v) ? Number(v) : v;
      }
      if (Object.keys(oos).length) o.scs = { out_of_supply: oos };

      if (fogOn.input.checked) o.fog = { enabled: true, others: fogOthers.value };
      return Object.keys(o).length ? o : null;
    },
  };
}

/** The new campaign's tokens, shown once, and the way in. */
function createdPanel(c, onSignedIn) {
  const text = () =>
    [
      `umpire campaign: ${c.name} (${c.id})`,
      `created: ${c.created_at}`,
      `console: ${location.origin}/`,
      '',
      'umpire token (runs the campaign; keep it to yourself):',
      c.umpire_token,
      '',
      'player tokens (give each side its own, and no other):',
      ...c.sides.map((s) => `${s.name}: ${s.player_token}`),
      '',
    ].join('\n');
  const signInBtn = h('button', { type: 'button', class: 'primary', testid: 'new-sign-in' }, 'Sign in as its umpire');
  const status = h('div');
  signInBtn.addEventListener('click', async () => {
    signInBtn.disabled = true;
    try {
      await signIn(c.umpire_token);
      announce('Signed in as the umpire.');
      if (onSignedIn) onSignedIn();
    } catch (err) {
      replace(status, h('p', { class: 'form-error', role: 'alert', testid: 'error' }, `Could not sign in: ${err.message}`));
      signInBtn.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'card created', testid: 'new-created', 'data-campaign-id': c.id },
    h('h2', null, `${c.name} is ready`, h('small', { class: 'h1-sub' }, ' ', timeEl(c.created_at))),
    h(
      'p',
      { class: 'notice', role: 'alert' },
      h('strong', null, 'Keep these tokens now: they are shown only this once. '),
      'The service keeps only their hashes. Copy each one, or download them all as a file. A lost token can be replaced later from Tokens, with the umpire token.',
    ),
    secretLine('Umpire token (yours: it runs the campaign)', c.umpire_token, { testid: 'new-umpire-token' }),
    h('h3', null, 'Player tokens: one for each side'),
    c.sides.map((s) => secretLine(s.name, s.player_token, { testid: 'new-player-token', 'data-side-name': s.name })),
    h('div', { class: 'actions' }, downloadSecretsButton('Download the tokens (text file)', `${fileSlug(c.name)}-tokens.txt`, text), signInBtn),
    status,
  );
}
