-- scrud-8v4.lua: the wrk script of `make bench` (see bench/README.md).
--
-- Every request is the same one-off SCRUD combat, POST /v1/combats/scrud:
-- 8 inline units against 4, of varied quality, with penalties, a d8 and a
-- reserve, dice seeded by the server (the default; each combat draws its own
-- server seed, so every one is a different fight).  The server answers 201
-- once the combat and its rolls are committed (synchronous=FULL).
--
-- Anything but a 201 is counted per wrk thread and reported by done(), with
-- the first such status and the start of its body, so a run that "went
-- fast" by failing shows.

wrk.method = "POST"
wrk.path = "/v1/combats/scrud"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[
{"sides":[
 {"name":"Blue","modifier":1,"units":[
  {"name":"Guard Grenadiers","quality":3},
  {"name":"1st Line","quality":1},
  {"name":"2nd Line","quality":1,"defeat_penalty":1},
  {"name":"3rd Line","quality":0},
  {"name":"Light Infantry","quality":2,"fatigue_penalty":1},
  {"name":"Militia","quality":-1},
  {"name":"Hussars","quality":2,"faces":8},
  {"name":"Foot Artillery","quality":1,"reserve":true}]},
 {"name":"Red","units":[
  {"name":"Old Guard","quality":4},
  {"name":"Fusiliers","quality":2,"defeat_penalty":1},
  {"name":"Voltigeurs","quality":1},
  {"name":"Cuirassiers","quality":3,"faces":8,"reserve":true}]}],
 "dice":{"source":"seeded"},
 "note":"bench: 8 against 4"}
]]

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   bad = 0            -- responses other than 201 on this thread
   first_bad = nil    -- "status: body..." of the first of them
end

function response(status, headers, body)
   if status ~= 201 then
      bad = bad + 1
      if first_bad == nil then
         first_bad = status .. ": " .. string.sub(body or "", 1, 200)
      end
   end
end

function done(summary, latency, requests)
   local total, first = 0, nil
   for _, t in ipairs(threads) do
      total = total + (t:get("bad") or 0)
      first = first or t:get("first_bad")
   end
   io.write(string.format("non-201 responses: %d of %d\n", total,
                          summary.requests))
   if first then
      io.write("first non-201: " .. first .. "\n")
   end
end
