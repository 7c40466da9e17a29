// Who is signed in: the token's campaign and role (GET /v1/token) and the
// campaign itself (GET /v1/campaigns/{id}: sides, options, next commitment,
// ledger head). Pages read it from here; the header listens for changes.

import { getJSON, getToken, setToken, clearToken, NetworkError } from './api.js';

export const session = {
  /** {campaign_id, campaign_name, role, side_id, side_name} or null. */
  who: null,
  /** The campaign document, or null. */
  campaign: null,
};

const listeners = new Set();

/** Call fn() whenever the session changes; answers an unsubscribe function. */
export function onSessionChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify() {
  for (const fn of listeners) fn(session);
}

export function signedIn() {
  return session.who !== null;
}

export function isUmpire() {
  return Boolean(session.who && session.who.role === 'umpire');
}

/** A path under the signed-in campaign: cpath('/units') */
export function cpath(suffix = '') {
  if (!session.who) throw new Error('not signed in');
  return `/v1/campaigns/${encodeURIComponent(session.who.campaign_id)}${suffix}`;
}

/** The campaign's sides, [{id, name}], in the order they were created. */
export function sides() {
  return session.campaign ? session.campaign.sides : [];
}

/** A side's name from its id. */
export function sideName(id) {
  const s = sides().find((x) => x.id === id);
  return s ? s.name : id;
}

/** Tidy what was pasted: spaces, quotes, a leading "Bearer". */
export function cleanToken(raw) {
  return String(raw || '')
    .trim()
    .replace(/^authorization:\s*/i, '')
    .replace(/^bearer\s+/i, '')
    .replace(/^["']|["']$/g, '')
    .trim();
}

/** Sign in with a pasted token; rejects (and forgets the token) if it is refused. */
export async function signIn(rawToken) {
  const token = cleanToken(rawToken);
  if (!token) throw new Error('paste a token first');
  setToken(token);
  try {
    const who = await getJSON('/v1/token');
    session.who = who;
    await refreshCampaign();
  } catch (err) {
    // A token refused is forgotten; after a network error it is kept, so a
    // reload of the page can try again.
    if (!(err instanceof NetworkError)) clearToken();
    session.who = null;
    session.campaign = null;
    throw err;
  }
  notify();
}

/** Sign in again with the token this tab kept, if any. */
export async function resume() {
  const token = getToken();
  if (!token) return false;
  await signIn(token);
  return true;
}

export function signOut() {
  clearToken();
  session.who = null;
  session.campaign = null;
  notify();
}

/** Read the campaign again (after a combat: a new next commitment, a longer ledger). */
export async function refreshCampaign() {
  if (!session.who) return;
  session.campaign = await getJSON(cpath());
  notify();
}
