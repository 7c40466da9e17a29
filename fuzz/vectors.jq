# fuzz/vectors.jq: the worked examples of tests/vectors/ as one-off
# request bodies with entered dice, for the fuzz targets' seeds
# (fuzz/seed.sh).  Run on each vector file; writes one line per seed:
# "SYSTEM BODY" (a system's request) or "@t BODY" (a combat results
# table).  Close to what the tests send (tests/server/systems/*/
# test_*_vectors.c), not checked against the expectations: a seed only has
# to look like a request.

def entered: {"source": "entered"};
def line($sys; $body): "\($sys) \($body | tojson)";

# scrud-*.json: each combat's two sides, units with their dice.
def scrud($units; $options):
  . as $c
  | {"sides": [ ($c.first, $c.second) as $s
                | {"name": $s,
                   "units": [ $c.dice[$s][]
                              | {"name": .[0], "die": .[1],
                                 "quality": ($units[.[0]].quality // 0)} ]} ],
     "dice": entered}
    + (if ($options // {}) == {} then {} else {"options": $options} end);

# edna-example.json: one unit's tests, one request each.
def edna:
  .options as $o | .unit.edna_start as $start
  | .tests[]
  | {"units": [{"name": "U", "start": $start,
                "edna": .expect.edna_before, "dice": .dice}],
     "options": {"faces": $o.faces},
     "dice": entered};

# matrix-examples.json: the battle, fought whole.
def matrix:
  .battle as $b
  | def army($a):
      {"name": $a.name, "argument": ($a.modifier // 0),
       "units": [ $a.units[] | {"name": .id, "quality": (.quality // 0)} ]};
    def army_of($u):
      if any($b.attacker.units[]; .id == $u) then "attacker" else "defender"
      end;
    {"attacker": army($b.attacker), "defender": army($b.defender),
     "line": [ $b.line | to_entries[]
               | .key as $i
               | {"attacker": .value[0], "defender": .value[1],
                  "dice": ([ $b.combats[] | select(.index == $i) | .dice ]
                           | first // {})} ],
     "commits": [ $b.combats[] | .index as $i | (.reserves // [])[]
                  | {"combat": $i, "army": army_of(.unit), "unit": .unit,
                     "die": .die} ],
     "dice": entered};

# civ-examples.json: each battle run on standing orders taken from its
# phases, its dice in phase order, the attacker's then the defender's.
def civ:
  .battles[]
  | . as $b
  | def army($a):
      {"name": $a.name, "technologies": ($a.technologies // 0),
       "units": [ $a.units[]
                  | {"name": .id, "class": .class, "era": .era,
                     "bonus": (.bonus // 0)}
                    + (if .dice_multiplier then
                         {"dice_multiplier": .dice_multiplier}
                       else {} end) ]}
      + ([ $b.phases[] | (.waves // {})[$a.name] // [] | .[] ] | unique
         | if length > 0 then {"wave_preference": .} else {} end)
      + ([ $b.phases[] | (.aircraft_support // {})[$a.name] // empty ]
         | if length > 0 then {"aircraft_support": .[0]} else {} end)
      + ([ $b.phases[] | (.casualty_order // {})[$a.name] // empty ]
         | if length > 0 then {"casualty_order": .[0]} else {} end);
    {"current_era": .current_era,
     "settlement": (.settlement // false),
     "great_wall": (.great_wall // false),
     "attacker": army(.attacker), "defender": army(.defender),
     "dice": entered,
     "rolls": [ .phases[] | (.dice[$b.attacker.name] // [])[],
                            (.dice[$b.defender.name] // [])[] ]};

# scs-examples.json: each combat (the example table by name, or its own
# table inline), and each odds case as one attacker against one defender.
def scs_unit: {"name": .id} + del(.id);
def scs:
  (.combats[]
   | {"table": (if (.crt | type) == "string" then "example-2d6" else .crt
                end),
      "attackers": [ .attackers[] | scs_unit ],
      "defenders": [ .defenders[] | scs_unit ],
      "dice": entered}
     + (if (.dice | length) > 0 then {"roll": .dice} else {} end)
     + del(.name, .crt, .expect, .also_expect, .note, .dice, .attackers,
           .defenders)),
  (.odds[]
   | {"table": "example-2d6",
      "attackers": [{"name": "A", "attack": 1, "defense": 1,
                     "multipliers": [.attack]}],
      "defenders": [{"name": "D", "attack": 1, "defense": 1,
                     "multipliers": [.defense]}],
      "dice": entered, "roll": [1, 1]});

if .name == "tannenberg" then
  .units as $u | .options as $o | .combats[] | line("scrud"; scrud($u; $o))
elif .name == "blog-examples" then
  .cases[] | line("scrud"; scrud(.units; .options))
elif .name == "edna-example" then
  line("edna"; edna)
elif .name == "matrix-examples" then
  line("matrix"; matrix)
elif .name == "civ-examples" then
  line("civ"; civ)
elif .name == "scs-examples" then
  line("scs"; scs),
  (.combats[] | select((.crt | type) == "object") | line("@t"; .crt))
elif (.roll? // null) != null and .rows? != null then
  line("@t"; .)
else
  empty
end
