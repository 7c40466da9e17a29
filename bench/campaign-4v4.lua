-- campaign-4v4.lua: the campaign combat of `make bench` (bench/README.md,
-- "Campaign combats").
--
--   wrk ... -s bench/campaign-4v4.lua URL -- CAMPAIGN_ID UMPIRE_TOKEN [N]
--
-- Every request is the same SCRUD combat of 4 units against 4 in the
-- campaign bench/campaign.sh made, POST /v1/campaigns/ID/combats/scrud, with
-- seeded dice: each combat takes the campaign's next seed, so every one is a
-- different fight, appended to the ledger, the units' histories and the
-- event log.  The campaign's options keep every unit as it was (no lasting
-- penalty, no elimination), so combats can go on for ever.
--
-- With N (a whole number from 1), every Nth request of each connection
-- is the same combat with entered dice instead (each unit's die given,
-- as a player's own dice are): it spends no commitment.
--
-- Anything but a 201 is counted and reported by done(), as in scrud-8v4.lua.

local threads = {}
local req

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   bad = 0
   first_bad = nil
   local id, token = args[1], args[2]
   if id == nil or token == nil then
      error("usage: wrk ... -s campaign-4v4.lua URL -- CAMPAIGN_ID TOKEN")
   end
   local path = "/v1/campaigns/" .. id .. "/combats/scrud"
   local headers = {["Content-Type"] = "application/json",
                    ["Authorization"] = "Bearer " .. token}
   req = wrk.format("POST", path, headers, [[
{"sides":[
 {"side":"blue","units":[{"unit":"B1"},{"unit":"B2"},{"unit":"B3"},{"unit":"B4"}]},
 {"side":"red","units":[{"unit":"R1"},{"unit":"R2"},{"unit":"R3"},{"unit":"R4"}]}],
 "dice":{"source":"seeded"},
 "note":"bench: campaign 4 against 4"}
]])
   entered_every = tonumber(args[3] or "0") or 0
   if entered_every < 0 or entered_every ~= math.floor(entered_every) then
      error("campaign-4v4.lua: N must be a whole number from 1")
   end
   entered = wrk.format("POST", path, headers, [[
{"sides":[
 {"side":"blue","units":[{"unit":"B1","die":3},{"unit":"B2","die":4},{"unit":"B3","die":2},{"unit":"B4","die":5}]},
 {"side":"red","units":[{"unit":"R1","die":6},{"unit":"R2","die":1},{"unit":"R3","die":3},{"unit":"R4","die":7}]}],
 "dice":{"source":"entered"},
 "note":"bench: campaign 4 against 4, entered dice"}
]])
   sent = 0
end

function request()
   sent = sent + 1
   if entered_every > 0 and sent % entered_every == 0 then
      return entered
   end
   return req
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
