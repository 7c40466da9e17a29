// fixtures.mjs: the campaign the browser tests play in, and the API client
// both scripts use.
//
// Imported by console.test.mjs for the names and dice it expects; run by
// run.sh as `node fixtures.mjs BASE_URL` to create the campaign through the
// API on a fresh server and print, one per line, the KEY=value settings the
// test reads from its environment.  Every value is checked to be plain
// (letters, digits and a few URL characters) so run.sh can read the lines
// without a shell parsing them.

import { pathToFileURL } from 'node:url';

// The campaign: two sides of two SCRUD units.  Only the units in FIGHT take
// part in the umpire's combat; the others must stay out of its result.
export const FIXTURE = {
  campaign: 'Browser test campaign',
  sides: ['north', 'south'],
  units: [
    { name: 'Rangers', side: 'north', scrud: { quality: 1 } },
    { name: 'Militia', side: 'north', scrud: { quality: -1 } },
    { name: 'Fusiliers', side: 'south', scrud: {} },
    { name: 'Lancers', side: 'south', scrud: {} },
  ],
  // The umpire's combat: one unit a side, dice entered as rolled at a
  // table.  Rangers score 4 + 1 = 5 against the Fusiliers' 2.
  fight: [
    { side: 'north', unit: 'Rangers', die: 4 },
    { side: 'south', unit: 'Fusiliers', die: 2 },
  ],
  // The player whose token the player flow signs in with (the side of the
  // unit whose history it reads).
  player_side: 'south',
  history_unit: 'Fusiliers',
};

// A JSON request to the service; throws with the status and body on any
// answer but the expected one.  `token` may be null for public routes.
export async function api(base, method, path, token, body, expect = [200, 201]) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, base), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30000),
  });
  const text = await res.text();
  if (!expect.includes(res.status)) {
    throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  }
  return text ? JSON.parse(text) : null;
}

// The SCRUD combat of FIXTURE.fight as a request body, entered dice.
export function fightRequest() {
  return {
    note: 'browser test',
    dice: { source: 'entered' },
    sides: FIXTURE.sides.map((side) => ({
      side,
      units: FIXTURE.fight
        .filter((f) => f.side === side)
        .map((f) => ({ unit: f.unit, die: f.die })),
    })),
  };
}

// Creates the campaign and its units; returns the settings for the test.
async function create(base) {
  const c = await api(base, 'POST', '/v1/campaigns', null, {
    name: FIXTURE.campaign,
    sides: FIXTURE.sides.map((name) => ({ name })),
  });
  for (const u of FIXTURE.units) {
    await api(base, 'POST', `/v1/campaigns/${c.id}/units`, c.umpire_token, u);
  }
  const player = c.sides.find((s) => s.name === FIXTURE.player_side);
  if (!player) throw new Error(`no side ${FIXTURE.player_side} in the answer`);
  return {
    UMPIRE_URL: base,
    CAMPAIGN_ID: c.id,
    UMPIRE_TOKEN: c.umpire_token,
    PLAYER_TOKEN: player.player_token,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const base = process.argv[2];
  if (!base) {
    console.error('usage: node fixtures.mjs BASE_URL');
    process.exit(2);
  }
  try {
    const settings = await create(base);
    for (const [k, v] of Object.entries(settings)) {
      if (!/^[A-Za-z0-9_.:\/-]+$/.test(v)) throw new Error(`unexpected ${k}: ${v}`);
      console.log(`${k}=${v}`);
    }
  } catch (e) {
    console.error(`fixtures: ${e.message}`);
    process.exit(1);
  }
}
