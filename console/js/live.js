// live.js: the campaign's live events (GET /v1/campaigns/{cid}/events,
// Server-Sent Events) and the running log drawn from them (#/log).
//
// One stream per tab, opened when a token signs in and closed when it
// signs out. EventSource cannot send an Authorization header, and the
// console's token must never be put in a URL (it would land in the
// service's and the proxy's access logs), so the stream is read with
// fetch(): the body as text/event-stream, parsed here as the HTML
// standard's EventSource would, with the token in the header. A dropped
// stream is resumed with Last-Event-ID, so no event is lost in between:
// the service replays the ones after it. A 429 (too many streams for the
// token) waits for its Retry-After; a stream silent for longer than the
// keep-alive comments allow is treated as dropped.
//
// Pages listen with onLive(kind, fn) (kinds: combat, battle, unit,
// ledger, or '*'), e.g. an open battle's page draws the battle again when
// an action lands, instead of polling. The log keeps the last MAX_ENTRIES
// events of this tab in memory, newest first, with each combat's dice
// read from its report as it comes in.

import { h, replace, announce } from './dom.js';
import { getToken, getJSON } from './api.js';
import { session, cpath, onSessionChange, refreshCampaign } from './session.js';
import { systemTitle, historyResultText } from './format.js';

const MAX_ENTRIES = 200;
const SILENCE_MS = 45000; // the service sends ": keep-alive" every 15 s
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30000;
const GONE_RETRY_MS = 60000; // no stream on this service (404): ask again now and then

/**
 * The stream's state, for the log's status line:
 *   off          not signed in
 *   connecting   asking for the stream
 *   live         the stream is open
 *   retrying     it dropped or was refused for now; trying again
 *   unavailable  this service has no stream (404), or refused the token
 */
const state = {
  status: 'off',
  detail: '',
  lastId: null, // the id of the last event seen: Last-Event-ID on a reconnect
  campaignId: null,
  entries: [], // newest first
  unread: 0,
  ledger: null, // {length, head} of the last ledger event
};

const listeners = new Map(); // kind -> Set(fn)
const statusListeners = new Set();
let generation = 0; // bumped on every sign-in and sign-out: old loops stop
let controller = null;

/** Call fn(data, event) for every event of kind ('*': every event). Answers an unsubscribe function. */
export function onLive(kind, fn) {
  if (!listeners.has(kind)) listeners.set(kind, new Set());
  listeners.get(kind).add(fn);
  return () => listeners.get(kind).delete(fn);
}

/** Call fn(state) whenever the stream's status changes or an event lands. */
export function onLiveStatus(fn) {
  statusListeners.add(fn);
  return () => statusListeners.delete(fn);
}

/** Whether the stream is open now (a page may then leave out its own polling). */
export function isLive() {
  return state.status === 'live';
}

function setStatus(status, detail = '') {
  state.status = status;
  state.detail = detail;
  notifyStatus();
}

function notifyStatus() {
  for (const fn of statusListeners) {
    try {
      fn(state);
    } catch {
      /* a listener's error is its own */
    }
  }
  drawNavBadge();
}

const wakers = new Set();

/** Wait ms, or until the session changes (stop() wakes every sleeper). */
function sleep(ms, gen) {
  return new Promise((resolve) => {
    if (gen !== generation) {
      resolve();
      return;
    }
    const wake = () => {
      clearTimeout(timer);
      wakers.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    wakers.add(wake);
  });
}

// ---- reading the stream ---------------------------------------------------

/**
 * An event-stream parser (HTML standard, "Parsing an event stream"): feed
 * it text as it comes; it calls onEvent({id, event, data}) at each blank
 * line that ends an event with data, and onComment() for comment lines.
 */
export function createParser(onEvent, onComment = () => {}) {
  let buf = '';
  let data = [];
  let event = '';
  let id = null;
  let sawCR = false;

  function line(l) {
    if (l === '') {
      if (data.length) onEvent({ id, event: event || 'message', data: data.join('\n') });
      data = [];
      event = '';
      return;
    }
    if (l[0] === ':') {
      onComment(l.slice(1));
      return;
    }
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    // "retry" and unknown fields: the reconnection delay is ours.
  }

  return function feed(text) {
    buf += text;
    let start = 0;
    for (let i = 0; i < buf.length; i += 1) {
      const c = buf[i];
      if (c === '\n' && sawCR) {
        sawCR = false;
        start = i + 1;
        continue;
      }
      sawCR = false;
      if (c === '\r' || c === '\n') {
        line(buf.slice(start, i));
        start = i + 1;
        sawCR = c === '\r';
      }
    }
    buf = buf.slice(start);
  };
}

async function readStream(res, gen) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let last = Date.now();
  const watchdog = setInterval(() => {
    if (Date.now() - last > SILENCE_MS && controller) controller.abort();
  }, 5000);
  const feed = createParser(
    (ev) => {
      if (gen === generation) receive(ev);
    },
    () => {},
  );
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || gen !== generation) return;
      last = Date.now();
      feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    clearInterval(watchdog);
    try {
      reader.releaseLock();
    } catch {
      /* already released */
    }
  }
}

/** The stream, again and again, until the session changes. */
async function run(gen) {
  let backoff = RETRY_MIN_MS; // doubles with each failure in a row
  while (gen === generation) {
    const token = getToken();
    if (!token || !session.who) return;
    controller = new AbortController();
    const headers = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
    if (state.lastId !== null) headers['Last-Event-ID'] = state.lastId;
    setStatus(state.lastId === null ? 'connecting' : 'retrying', state.lastId === null ? '' : 'catching up');
    let wait = null; // null: back off
    try {
      const res = await fetch(cpath('/events'), { headers, cache: 'no-store', credentials: 'omit', signal: controller.signal });
      if (gen !== generation) return;
      const type = res.headers.get('Content-Type') || '';
      if (res.ok && type.startsWith('text/event-stream') && res.body) {
        setStatus('live');
        backoff = RETRY_MIN_MS;
        await readStream(res, gen);
        if (gen !== generation) return;
        wait = RETRY_MIN_MS;
        setStatus('retrying', 'the stream ended');
      } else if (res.status === 429 || res.status === 503) {
        const after = Number(res.headers.get('Retry-After'));
        wait = Number.isFinite(after) && after > 0 ? after * 1000 : RETRY_MAX_MS;
        setStatus('retrying', res.status === 429 ? 'too many open streams for this token (other tabs?)' : 'the service is busy or stopping');
      } else if (res.status === 401 || res.status === 403) {
        setStatus('unavailable', 'the service refused the token for the stream');
        return;
      } else if ([404, 405, 406].includes(res.status) || res.ok) {
        wait = GONE_RETRY_MS;
        setStatus('unavailable', 'this service has no live stream');
      } else {
        setStatus('retrying', `the service answered ${res.status}`);
      }
      try {
        await res.body?.cancel();
      } catch {
        /* nothing left to cancel */
      }
    } catch {
      if (gen !== generation) return;
      setStatus('retrying', 'no answer from the service');
    }
    if (wait === null) {
      wait = backoff;
      backoff = Math.min(backoff * 2, RETRY_MAX_MS);
    }
    await sleep(wait, gen);
  }
}

function start() {
  stop();
  state.campaignId = session.who ? session.who.campaign_id : null;
  if (!state.campaignId) return;
  const gen = generation;
  run(gen);
}

function stop() {
  generation += 1;
  if (controller) controller.abort();
  controller = null;
  for (const wake of [...wakers]) wake();
  state.lastId = null;
  state.entries = [];
  state.unread = 0;
  state.ledger = null;
  setStatus('off');
}

// Sign-in, sign-out, another campaign: the stream follows the session.
onSessionChange(() => {
  const id = session.who ? session.who.campaign_id : null;
  if (id === state.campaignId && (id === null || state.status !== 'off')) return;
  if (id) start();
  else {
    state.campaignId = null;
    stop();
  }
});

// ---- events -----------------------------------------------------------------

let ledgerTimer = null;

function receive(ev) {
  let data;
  try {
    data = JSON.parse(ev.data);
  } catch {
    return; // not ours
  }
  if (ev.id !== null && ev.id !== undefined) {
    const n = Number(ev.id);
    const last = Number(state.lastId);
    if (state.lastId !== null && Number.isFinite(n) && Number.isFinite(last) && n <= last) return; // seen already
    state.lastId = ev.id;
  }
  const kind = ev.event;
  if (kind === 'ledger') {
    state.ledger = data;
    // The header's ledger head and next commitment: read the campaign
    // again, once for a burst of events.
    clearTimeout(ledgerTimer);
    ledgerTimer = setTimeout(() => refreshCampaign().catch(() => {}), 300);
  } else if (kind === 'combat' || kind === 'battle' || kind === 'unit') {
    addEntry({ id: ev.id, kind, data, at: new Date() });
  }
  for (const k of [kind, '*']) {
    for (const fn of listeners.get(k) || []) {
      try {
        fn(data, ev);
      } catch {
        /* a listener's error is its own */
      }
    }
  }
  notifyStatus();
}

function addEntry(entry) {
  // A unit's part in a combat goes under that combat's entry, not above it.
  const d = entry.data;
  if (entry.kind === 'unit' && d.kind === 'combat' && d.combat_id) {
    const combat = state.entries.find((e) => e.kind === 'combat' && e.data.combat_id === d.combat_id);
    if (combat) {
      combat.units.push(d);
      if (combat.unitList) combat.unitList.append(unitLine(d));
      return;
    }
  }
  entry.units = [];
  state.entries.unshift(entry);
  if (state.entries.length > MAX_ENTRIES) state.entries.length = MAX_ENTRIES;
  if (!logView || !logView.isConnected) state.unread += 1;
  if (logList && logList.isConnected) {
    logList.prepend(entryEl(entry));
    while (logList.children.length > MAX_ENTRIES) logList.lastChild.remove();
    emptyNote.hidden = true;
    announce(entryText(entry));
  }
}

// ---- the log ------------------------------------------------------------------

let logView = null;
let logList = null;
let emptyNote = null;

const STATUS_TEXT = {
  off: 'not connected',
  connecting: 'connecting…',
  live: 'live',
  retrying: 'reconnecting…',
  unavailable: 'not available',
};

function unitName(e) {
  return (e.after && e.after.name) || (e.before && e.before.name) || e.unit || e.unit_id || 'a unit';
}

function entryText(entry) {
  const d = entry.data;
  if (entry.kind === 'combat') return `${systemTitle(d.system)} combat: ${d.summary || ''}`;
  if (entry.kind === 'battle') return `${systemTitle(d.system)} battle ${d.status}, ${d.n_actions} action${d.n_actions === 1 ? '' : 's'}`;
  return `${unitName(d)}: ${d.kind || 'changed'}`;
}

/** A die as a small chip: "Rangers d6 4". */
function dieChip(label, faces, natural) {
  return h('span', { class: 'live-die', testid: 'live-die' }, label ? h('span', { class: 'live-die-who' }, label) : null, h('span', { class: 'live-die-faces' }, `d${faces}`), h('strong', null, natural));
}

/**
 * A combat's dice, read from its report (the event carries only its
 * summary), once per entry however often the log is drawn.
 */
function combatDice(entry) {
  const d = entry.data;
  const box = h('div', { class: 'live-dice', testid: 'live-dice', 'data-state': 'loading' }, 'dice: reading the report…');
  if (!entry.report) entry.report = getJSON(cpath(`/combats/${encodeURIComponent(d.combat_id)}`));
  entry.report
    .then((r) => {
      const rolls = Array.isArray(r.rolls) ? [...r.rolls].sort((a, b) => a.seq - b.seq) : [];
      const source = r.dice && r.dice.source === 'entered' ? 'entered' : 'seeded';
      box.setAttribute('data-state', 'ready');
      replace(
        box,
        rolls.length ? rolls.map((x) => dieChip(x.unit, x.faces, x.natural)) : h('span', { class: 'hint' }, 'no dice'),
        h('span', { class: 'hint live-dice-source' }, source === 'entered' ? 'entered by the umpire' : 'seeded dice'),
      );
    })
    .catch(() => {
      box.setAttribute('data-state', 'unavailable');
      replace(box, h('span', { class: 'hint' }, 'dice: open the report'));
    });
  return box;
}

/** A unit's part in a combat, under the combat's entry. */
function unitLine(d) {
  return h(
    'li',
    { class: 'live-unit', testid: 'live-unit', 'data-unit-id': d.unit_id || '' },
    d.unit_id ? h('a', { href: `#/units/${encodeURIComponent(d.unit_id)}` }, unitName(d)) : unitName(d),
    ': ',
    d.result ? historyResultText(d.result).replace(/^[A-Za-z]+ \([^)]*\): /, '') : 'took part',
  );
}

/** An open Matrix battle's dice as they stand: each rolled combat's. */
function battleDice(d) {
  const box = h('div', { class: 'live-dice', testid: 'live-dice', 'data-state': 'loading' });
  getJSON(cpath(`/battles/${encodeURIComponent(d.battle_id)}`))
    .then((b) => {
      box.setAttribute('data-state', 'ready');
      const chips = [];
      if (Array.isArray(b.combats)) {
        // The combat being fought (rolled, not yet accepted), else the last rolled.
        const rolled = b.combats.filter((c) => c.rolled);
        const c = rolled.find((x) => !x.accepted) || rolled[rolled.length - 1];
        if (c && c.dice) {
          chips.push(h('span', { class: 'hint' }, `combat ${c.index + 1}: `));
          for (const [u, n] of Object.entries(c.dice)) chips.push(dieChip(u, 6, n));
          for (const r of c.reserves || []) chips.push(dieChip(`${r.unit} (reserve)`, 6, r.die));
        }
      }
      if (!chips.length) box.hidden = true;
      else replace(box, chips);
    })
    .catch(() => {
      box.hidden = true;
    });
  return box;
}

/** When an event happened: the time of day, the date too when not today. */
function whenEl(ts) {
  const d = new Date(ts);
  if (Number.isNaN(d.getTime())) return h('span', null, ts);
  const today = new Date().toDateString() === d.toDateString();
  const text = today
    ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
  return h('time', { datetime: ts, title: ts }, text);
}

function entryEl(entry) {
  const d = entry.data;
  const head = h('span', { class: 'live-when' }, whenEl(d.created_at || d.at || entry.at.toISOString()));
  let body;
  if (entry.kind === 'combat') {
    entry.unitList = h('ul', { class: 'live-units' }, entry.units.map(unitLine));
    body = [
      h('p', { class: 'live-title' }, h('span', { class: 'badge' }, systemTitle(d.system)), ' ', h('a', { href: `#/reports/${encodeURIComponent(d.combat_id)}`, testid: 'live-link' }, 'Combat'), ': ', d.summary || ''),
      combatDice(entry),
      entry.unitList,
    ];
  } else if (entry.kind === 'battle') {
    body = [
      h(
        'p',
        { class: 'live-title' },
        h('span', { class: 'badge' }, systemTitle(d.system)),
        ' ',
        h('a', { href: `#/battles/${encodeURIComponent(d.battle_id)}`, testid: 'live-link' }, 'Battle'),
        ' ',
        h('span', { class: ['badge', `status-${d.status}`] }, d.status),
        `, ${d.n_actions} action${d.n_actions === 1 ? '' : 's'}`,
      ),
      d.system === 'matrix' && d.status === 'open' ? battleDice(d) : null,
    ];
  } else {
    const what = d.kind === 'combat' && d.result ? historyResultText(d.result) : d.kind === 'created' ? 'joined the campaign' : d.kind || 'changed';
    body = [
      h(
        'p',
        { class: 'live-title' },
        d.unit_id ? h('a', { href: `#/units/${encodeURIComponent(d.unit_id)}` }, unitName(d)) : unitName(d),
        ': ',
        what,
        d.note ? ` (${d.note})` : '',
      ),
    ];
  }
  const id = entry.kind === 'combat' ? d.combat_id : entry.kind === 'battle' ? d.battle_id : d.unit_id;
  return h('li', { class: ['live-entry', `live-${entry.kind}`], testid: 'live-entry', 'data-kind': entry.kind, 'data-event-id': entry.id ?? '', 'data-id': id || '' }, head, h('div', { class: 'live-body' }, body));
}

function statusEl() {
  const dot = h('span', { class: 'live-dot', 'aria-hidden': 'true' });
  const text = h('span', null);
  const el = h('p', { class: 'live-status', testid: 'live-status', role: 'status' }, dot, text);
  const draw = () => {
    el.setAttribute('data-state', state.status);
    text.textContent = `${STATUS_TEXT[state.status] || state.status}${state.detail ? `: ${state.detail}` : ''}`;
  };
  draw();
  const off = onLiveStatus(() => {
    if (!el.isConnected) {
      off();
      return;
    }
    draw();
  });
  return el;
}

/** #/log: the running log. */
export function renderLog(view) {
  state.unread = 0;
  drawNavBadge();
  logView = view;
  logList = h('ol', { class: 'live-log', testid: 'live-log', 'aria-label': 'Events, newest first' });
  emptyNote = h('p', { class: 'empty', testid: 'live-empty' }, 'Nothing yet. Combats, battle actions and changes to units appear here as they happen, from this console, other tabs, Discord or the API.');
  for (const e of state.entries) logList.append(entryEl(e));
  emptyNote.hidden = state.entries.length > 0;
  view.append(
    h('div', { class: 'section-head' }, h('h1', null, 'Live log'), statusEl()),
    h('p', { class: 'hint' }, 'Every roll as it happens, newest first. The log starts when you sign in and is kept while this tab is open; earlier combats are under Reports.'),
    emptyNote,
    logList,
  );
}

// ---- the nav entry's count of events not yet seen --------------------------------

function drawNavBadge() {
  const badge = document.getElementById('nav-log-count');
  if (!badge) return;
  badge.hidden = state.unread === 0;
  badge.textContent = state.unread > 99 ? '99+' : String(state.unread);
  const link = badge.closest('a');
  if (link) {
    link.setAttribute('data-live', state.status);
    link.title = `Live log: ${STATUS_TEXT[state.status] || state.status}`;
  }
}
