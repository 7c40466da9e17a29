// validate.mjs COMMANDS_JSON REPLIES_DIR: checks what umpire sends Discord
// with Discord's own library, @discordjs/builders (tests/discord/README.md).
//
// Every command definition (`umpire discord-commands`) is rebuilt with
// SlashCommandBuilder and its option builders, whose validators refuse
// the names, lengths, ranges and counts Discord refuses; the rebuilt
// definition must equal the service's.  Every reply document the C tests
// kept (tests/server/discord/, UMPIRE_DISCORD_REPLIES) is rebuilt the same
// way: its embeds with EmbedBuilder (title, description, fields, footer,
// and embedLength within 6,000), its components with ActionRowBuilder,
// ButtonBuilder and StringSelectMenuBuilder, autocomplete choices through
// a string option's addChoices; its type is one of discord-api-types'
// InteractionResponseType, its content within 2,000, its mentions parse
// nothing.  Prints one line per document and "N passed, M failed".
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';

// The packages are installed into the build folder (run.sh), not here.
const require = createRequire(join(process.env.DISCORD_PREFIX ?? '.', 'package.json'));
const b = require('@discordjs/builders');
const t = require('discord-api-types/v10');

const [commandsFile, repliesDir] = process.argv.slice(2);
if (!commandsFile || !repliesDir) {
  console.error('usage: node validate.mjs COMMANDS_JSON REPLIES_DIR');
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(name, fn) {
  try {
    fn();
    passed++;
    console.log(`ok      ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAILED  ${name}: ${err.message.split('\n').slice(0, 6).join(' ')}`);
  }
}
function assert(cond, why) {
  if (!cond) throw new Error(why);
}

// ---- command definitions ----

function addOption(builder, o) {
  const common = (x) => {
    x.setName(o.name).setDescription(o.description).setRequired(o.required ?? false);
    return x;
  };
  switch (o.type) {
    case t.ApplicationCommandOptionType.String:
      return builder.addStringOption((x) => {
        common(x);
        if (o.autocomplete) x.setAutocomplete(true);
        if (o.max_length !== undefined) x.setMaxLength(o.max_length);
        if (o.choices) x.addChoices(...o.choices);
        return x;
      });
    case t.ApplicationCommandOptionType.Integer:
      return builder.addIntegerOption((x) => {
        common(x);
        if (o.autocomplete) x.setAutocomplete(true);
        if (o.min_value !== undefined) x.setMinValue(o.min_value);
        if (o.max_value !== undefined) x.setMaxValue(o.max_value);
        return x;
      });
    case t.ApplicationCommandOptionType.Boolean:
      return builder.addBooleanOption((x) => common(x));
    case t.ApplicationCommandOptionType.Subcommand:
      return builder.addSubcommand((x) => {
        x.setName(o.name).setDescription(o.description);
        for (const so of o.options ?? []) addOption(x, so);
        return x;
      });
    default:
      throw new Error(`option ${o.name} has an unexpected type ${o.type}`);
  }
}

// What Discord counts towards a command's 8,000 characters.
function commandChars(c) {
  let n = c.name.length + c.description.length;
  for (const o of c.options ?? []) n += commandChars(o);
  for (const ch of c.choices ?? []) n += ch.name.length + String(ch.value).length;
  return n;
}

const commands = JSON.parse(readFileSync(commandsFile, 'utf8'));
check('the commands are a list of at most 100, names unique', () => {
  assert(Array.isArray(commands) && commands.length > 0 && commands.length <= 100, 'not 1 to 100 commands');
  assert(new Set(commands.map((c) => c.name)).size === commands.length, 'a name is taken twice');
});
for (const c of commands) {
  check(`command /${c.name}`, () => {
    assert(c.type === t.ApplicationCommandType.ChatInput, 'not a chat input command');
    const builder = new b.SlashCommandBuilder().setName(c.name).setDescription(c.description);
    if (c.contexts) builder.setContexts(...c.contexts);
    for (const o of c.options ?? []) addOption(builder, o);
    const built = builder.toJSON();
    // What the service sends must be what the builders make of it.
    const mine = { ...c };
    delete mine.type;
    for (const [k, v] of Object.entries(mine)) {
      const theirs = built[k];
      const norm = (x) => JSON.parse(JSON.stringify(x));
      assert(isDeepStrictEqual(norm(v), norm(theirs)), `${k} differs from the builders': ${JSON.stringify(theirs)}`);
    }
    assert(commandChars(c) <= 4000, `${commandChars(c)} characters of names and descriptions, over 4,000`);
  });
}

// ---- replies ----

function checkEmbed(e) {
  const em = new b.EmbedBuilder();
  if (e.title !== undefined) em.setTitle(e.title);
  if (e.description !== undefined) em.setDescription(e.description);
  if (e.color !== undefined) em.setColor(e.color);
  if (e.footer) em.setFooter({ text: e.footer.text });
  if (e.fields) em.addFields(...e.fields);
  const n = b.embedLength(em.toJSON());
  assert(n <= 6000, `the embed is ${n} characters, over 6,000`);
  return n;
}

function checkComponent(c) {
  switch (c.type) {
    case t.ComponentType.Button:
      return new b.ButtonBuilder().setCustomId(c.custom_id).setLabel(c.label).setStyle(c.style).toJSON();
    case t.ComponentType.StringSelect: {
      const s = new b.StringSelectMenuBuilder()
        .setCustomId(c.custom_id)
        .setMinValues(c.min_values)
        .setMaxValues(c.max_values)
        .addOptions(...c.options);
      if (c.placeholder) s.setPlaceholder(c.placeholder);
      return s.toJSON();
    }
    default:
      throw new Error(`component of type ${c.type}`);
  }
}

function checkRows(rows) {
  assert(rows.length <= 5, `${rows.length} action rows, over 5`);
  for (const r of rows) {
    assert(r.type === t.ComponentType.ActionRow, 'a top-level component is not an action row');
    const row = new b.ActionRowBuilder().addComponents(r.components.map((c) => b.createComponentBuilder(checkComponent(c))));
    const json = row.toJSON();
    const n = json.components.length;
    const selects = json.components.filter((c) => c.type !== t.ComponentType.Button).length;
    assert(n >= 1 && n <= 5 && (selects === 0 || n === 1), 'a row holds 1 to 5 buttons or one select');
  }
}

function checkReply(doc) {
  assert(t.InteractionResponseType[doc.type] !== undefined, `response type ${doc.type} is not Discord's`);
  if (doc.type === t.InteractionResponseType.Pong) return 'pong';
  if (doc.type === t.InteractionResponseType.ApplicationCommandAutocompleteResult) {
    const choices = doc.data.choices;
    assert(Array.isArray(choices), 'no choices');
    if (choices.length) new b.SlashCommandStringOption().setName('x').setDescription('x').addChoices(...choices);
    return `${choices.length} choices`;
  }
  const d = doc.data;
  assert(d.allowed_mentions && Array.isArray(d.allowed_mentions.parse) && d.allowed_mentions.parse.length === 0,
    'allowed_mentions must parse nothing');
  if (d.content !== undefined) assert(d.content.length <= 2000, `content is ${d.content.length}, over 2,000`);
  assert(d.flags === undefined || d.flags === t.MessageFlags.Ephemeral, `flags ${d.flags}`);
  assert((d.embeds ?? []).length <= 10, 'over 10 embeds');
  let total = 0;
  for (const e of d.embeds ?? []) total += checkEmbed(e);
  assert(total <= 6000, `the embeds are ${total} characters together, over 6,000`);
  checkRows(d.components ?? []);
  assert(d.content || (d.embeds ?? []).length || doc.type === t.InteractionResponseType.UpdateMessage,
    'a message with nothing to show');
  return `embed ${total}/6000, content ${(d.content ?? '').length}/2000`;
}

const files = readdirSync(repliesDir).filter((f) => f.endsWith('.json')).sort();
check('the C tests kept replies to check', () => assert(files.length >= 10, `only ${files.length} replies`));
for (const f of files) {
  let what = '';
  check(`reply ${f}`, () => {
    what = checkReply(JSON.parse(readFileSync(join(repliesDir, f), 'utf8')));
  });
  if (what) console.log(`        ${f}: ${what}`);
}

console.log(`discord: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
