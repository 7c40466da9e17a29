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
};

/** Draw the page the hash names into a fresh <section> of <main>. */
async function dispatch() {
  const route = currentRoute();
  if (route === null && rendered && location.hash) return; // an in-page anchor such as #main
  rendered = true;
  const view = h('section', { class: 'view' });
  clear(main);
  main.append(view);

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
