// The umpire console: a single page with hash routes.
//
//   #/units            the campaign's units (umpire: add sides and units)
//   #/units/<id>       one unit, its state per system and its history
//   #/combat/<system>  umpire: a combat form per system (scrud, edna, scs,
//                      matrix, civ); matrix and civ create a battle
//   #/battles          the campaign's interactive battles
//   #/battles/<id>     one battle, followed (umpire: fought) step by step
//   #/reports          the campaign's combats and battles, the campaign report
//   #/reports/<id>     one combat's report; #/reports/campaign the campaign's
//   #/ledger           the campaign's ledger, verified on demand
//   #/tables           the combat results tables as grids; the umpire's editor
//   #/tokens           umpire: reissue the umpire's or a side's token, the log
//   #/new              the start page: create a campaign (signed in or not)
//   #/log              the live log: every roll as it happens (js/live.js)
//   #/shares           umpire: share links, made, listed, revoked (js/shares.js)

import { h, clear, copyText, shortHash, announce } from './js/dom.js';
import { onUnauthorized } from './js/api.js';
import { session, resume, signOut, signedIn, isUmpire, onSessionChange, refreshCampaign } from './js/session.js';
import { errorBox } from './js/forms.js';
import { renderSignIn } from './js/signin.js';
import { renderUnits } from './js/units.js';
import { renderUnit } from './js/unit.js';
import { renderCombat } from './js/combat.js';
import { renderBattles, renderBattle } from './js/battles.js';
import { renderReports, renderReport } from './js/reports.js';
import { renderLedger } from './js/ledger.js';
import { renderTables } from './js/tables.js';
import { renderTokens } from './js/tokens.js';
import { renderStart } from './js/start.js';
import { renderLog } from './js/live.js';
import { renderShares } from './js/shares.js';
import './js/fog.js';

const main = document.getElementById('main');
let signInMessage = null;
let rendered = false;

/** The route in the hash: '#/units/abc' → ['units', 'abc']. */
function currentRoute() {
  const hash = location.hash || '';
  if (!hash.startsWith('#/')) return null;
  return hash
    .slice(2)
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

const PAGES = {
  units: (view, rest) => (rest.length ? renderUnit(view, rest[0]) : renderUnits(view)),
  combat: (view, rest) => renderCombat(view, rest[0] || 'scrud'),
  battles: (view, rest) => (rest.length ? renderBattle(view, rest[0]) : renderBattles(view)),
  reports: (view, rest) => (rest.length ? renderReport(view, rest[0]) : renderReports(view)),
  ledger: (view) => renderLedger(view),
  tables: (view, rest) => renderTables(view, rest[0]),
  tokens: (view) => renderTokens(view),
  log: (view) => renderLog(view),
  shares: (view, rest) => renderShares(view, rest),
};

/** The start page, reachable signed in or not; signing in there goes to the new campaign. */
function drawStart(view) {
  highlightNav(null);
  renderStart(view, {
    onSignedIn: () => {
      signInMessage = null;
      location.hash = '#/units';
    },
  });
}

/** Draw the page the hash names into a fresh <section> of <main>. */
async function dispatch() {
  const route = currentRoute();
  if (route === null && rendered && location.hash) return; // an in-page anchor such as #main
  rendered = true;
  const view = h('section', { class: 'view' });
  clear(main);
  main.append(view);

  if (route && route[0] === 'new') {
    drawStart(view);
    return;
  }

  if (!signedIn()) {
    highlightNav(null);
    renderSignIn(view, {
      message: signInMessage,
      onSignedIn: () => {
        signInMessage = null;
        const r = currentRoute();
        if (!r || r.length === 0) location.hash = '#/units';
        else dispatch();
      },
    });
    return;
  }

  const [page = 'units', ...rest] = route || [];
  const draw = PAGES[page];
  if (!draw) {
    location.replace('#/units');
    return;
  }
  highlightNav(page);
  // The header's next commitment and ledger head, fresh on every page.
  refreshCampaign().catch(() => {});
  try {
    await draw(view, rest);
  } catch (err) {
    view.append(errorBox(err));
  }
  // Move the focus to the new page's heading (for screen readers and the
  // keyboard), unless it is already on something of the page.
  const heading = view.querySelector('h1');
  if (heading && view.isConnected && !view.contains(document.activeElement)) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: true });
  }
}

function highlightNav(page) {
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.dataset.nav === page) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** The header: campaign, role, side, next commitment and ledger head. */
function drawHeader() {
  const info = document.getElementById('session-info');
  const dice = document.getElementById('dice-info');
  const nav = document.getElementById('nav');
  const on = signedIn();
  info.hidden = !on;
  dice.hidden = !on;
  nav.hidden = !on;
  if (!on) {
    document.title = 'umpire console';
    return;
  }
  const { who, campaign } = session;
  document.getElementById('campaign-name').textContent = who.campaign_name;
  document.getElementById('role').textContent = who.role;
  const side = document.getElementById('player-side');
  side.hidden = !who.side_name;
  side.textContent = who.side_name ? `side: ${who.side_name}` : '';
  document.getElementById('nav-combat').hidden = !isUmpire();
  document.getElementById('nav-tokens').hidden = !isUmpire();
  document.title = `${who.campaign_name} – umpire console`;

  const next = document.getElementById('next-commitment');
  next.textContent = campaign ? campaign.next_commitment : '';
  next.title = 'The SHA-256 of the seed of the next seeded combat or battle';
  const ledger = campaign ? campaign.ledger : null;
  document.getElementById('ledger-length').textContent = ledger
    ? `${ledger.length} entr${ledger.length === 1 ? 'y' : 'ies'}, head`
    : '';
  const head = document.getElementById('ledger-head');
  head.textContent = ledger ? shortHash(ledger.head, 16) : '';
  head.title = ledger ? ledger.head : '';
}

function wireHeader() {
  document.getElementById('logout').addEventListener('click', () => {
    signOut();
    signInMessage = null;
    announce('Signed out.');
    location.hash = '#/';
    dispatch();
  });
  const refreshBtn = document.getElementById('refresh-campaign');
  refreshBtn.addEventListener('click', async () => {
    refreshBtn.disabled = true;
    try {
      await refreshCampaign();
      announce('Next commitment and ledger head read again.');
    } catch {
      announce('The campaign could not be read.');
    } finally {
      refreshBtn.disabled = false;
    }
  });
  // On a phone the commitment and ledger fold away behind "Dice" (style.css).
  const diceToggle = document.getElementById('dice-toggle');
  diceToggle.addEventListener('click', () => {
    const open = document.getElementById('dice-info').classList.toggle('open');
    diceToggle.setAttribute('aria-expanded', String(open));
  });
  const copyBtn = document.getElementById('copy-commitment');
  copyBtn.addEventListener('click', async () => {
    const value = session.campaign ? session.campaign.next_commitment : '';
    const ok = value && (await copyText(value));
    copyBtn.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => {
      copyBtn.textContent = 'Copy';
    }, 1500);
  });
}

async function start() {
  wireHeader();
  onSessionChange(drawHeader);
  // A token the service no longer knows: back to the sign-in page, saying why.
  onUnauthorized(() => {
    if (!signedIn()) return;
    signOut();
    signInMessage = 'The service no longer accepts this token. Sign in again.';
    dispatch();
  });
  window.addEventListener('hashchange', dispatch);
  try {
    await resume();
  } catch (err) {
    signInMessage = `Could not sign in again with the token kept in this tab: ${err.message}`;
  }
  drawHeader();
  dispatch();
}

start();
