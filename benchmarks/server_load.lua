-- wrk's game loop for benchmarks/server_load.py --wrk (Debian's wrk 4.1, LuaJIT):
--   wrk -t 20 -c 20 -d 20s --latency -s benchmarks/server_load.lua http://127.0.0.1:PORT
-- Run with as many threads as connections (-t = -c): each thread then has one connection, whose
-- answers come back in order, so each thread plays its own games like a client of its own:
-- POST /games (2 players, short), then per move a GET .../view with the seat's token and a POST
-- .../actions with one of that view's legal actions, picked at random, and its seq.
-- The answers are canonical JSON (sorted keys, no spaces), read here with Lua patterns.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

function init(args)
   moves, refusals, games = 0, 0, 0
   step, game, tokens, seat, body = "create", nil, {}, nil, nil
   math.randomseed(os.time() + (tonumber(tostring({}):sub(8), 16) or 0))
end

local function seat_to_move(view)
   local turn = view:match('"turn":(%d+)')
   if turn then return tonumber(turn) end
   return tonumber(view:match('"owing_flips":%[(%d+)'))
end

function request()
   if step == "create" then
      return wrk.format("POST", "/games", {["Content-Type"] = "application/json"},
                        '{"players":2,"variant":"short"}')
   elseif step == "view" then
      return wrk.format("GET", "/games/" .. game .. "/view", {["Authorization"] = "Bearer " .. tokens[seat]})
   elseif step == "spectate" then
      return wrk.format("GET", "/games/" .. game .. "/view")
   end
   return wrk.format("POST", "/games/" .. game .. "/actions",
                     {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tokens[seat]},
                     body)
end

local function after(text, key)  -- the text from `key` on
   return text:sub((text:find(key, 1, true)))
end

local function follow(view)
   if view:find('"phase":"game_over"', 1, true) then
      step = "create"
   else
      seat, step = seat_to_move(view), "view"
   end
end

function response(status, headers, text)
   if step == "create" then
      game = text:match('"game":"(%x+)"')
      for number, token in text:gmatch('"seat":(%d+),"token":"([^"]+)"') do
         tokens[tonumber(number)] = token
      end
      games = games + 1
      follow(after(text, '"view":'))
   elseif step == "view" or step == "spectate" then
      if step == "spectate" then return follow(text) end
      local actions = text:match('"legal_actions":%[(.-)%]')
      local version, seq = text:match('"rules_version":"([^"]*)","seq":(%d+)')
      local choices = {}
      for action in actions:gmatch("{.-}") do table.insert(choices, action) end
      body = choices[math.random(#choices)]:sub(1, -2) ..
             ',"format":"action","format_version":1,"rules_version":"' .. version .. '","seq":' .. seq .. "}"
      step = "act"
   else
      if status == 200 then
         moves = moves + 1
         follow(after(text, ',"view":'))
      else
         refusals, step = refusals + 1, "spectate"
      end
   end
end

function done(summary, latency, requests)
   local played, refused, created = 0, 0, 0
   for _, thread in ipairs(threads) do
      played = played + thread:get("moves")
      refused = refused + thread:get("refusals")
      created = created + thread:get("games")
   end
   local seconds = summary.duration / 1e6
   io.write(string.format("moves %d (%.0f/s), games %d, refused %d, requests %d, errors %d\n", played,
                          played / seconds, created, refused, summary.requests,
                          summary.errors.connect + summary.errors.read + summary.errors.write +
                          summary.errors.status + summary.errors.timeout))
   io.write(string.format("latency of every request (ms): p50 %.1f p90 %.1f p99 %.1f max %.1f\n",
                          latency:percentile(50) / 1000, latency:percentile(90) / 1000,
                          latency:percentile(99) / 1000, latency.max / 1000))
end
