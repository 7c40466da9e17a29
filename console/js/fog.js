// fog.js: the note that fog of war is on (docs/console.md, "Fog of war").
//
// The console shows what the API answers and nothing more: with fog on, a
// player's token gets other sides' units reduced (or not at all), and the
// pages draw what they get. This note says so, under the header, so that a
// unit with no values, or a side with fewer units than the player
// remembers, reads as fog and not as a fault. The campaign's
// options.fog ({enabled, others}) says whether it is on and how far.

import { h, replace } from './dom.js';
import { session, onSessionChange } from './session.js';

const OTHERS_TEXT = {
  full: 'in full',
  status: 'by name, side and state only',
  name: 'by name and side only',
  hidden: 'not at all',
};

/** The campaign's fog option, or null when it is off or unknown. */
export function fogOf(campaign) {
  const fog = campaign && campaign.options && campaign.options.fog;
  return fog && fog.enabled ? fog : null;
}

function draw() {
  const box = document.getElementById('fog-note');
  if (!box) return;
  const fog = session.who ? fogOf(session.campaign) : null;
  box.hidden = !fog;
  if (!fog) {
    replace(box);
    box.removeAttribute('data-others');
    return;
  }
  const others = fog.others || 'status';
  box.setAttribute('data-others', others);
  box.setAttribute('data-role', session.who.role);
  const how = OTHERS_TEXT[others] || others;
  if (session.who.role === 'player') {
    replace(
      box,
      h('strong', null, 'Fog of war is on: '),
      `you see other sides’ units ${how}, in lists, histories, reports and the live log; your side’s (${session.who.side_name || 'yours'}) in full.`,
    );
  } else {
    replace(box, h('strong', null, 'Fog of war is on for the players: '), `each side sees the others’ units ${how}. You see everything.`);
  }
}

onSessionChange(draw);
draw();
