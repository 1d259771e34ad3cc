-- wrk script: POST /api/v1/zones/{zone}/records with a fresh owner name on every request, round
-- robin over the zones in ZONES (comma-separated), authenticated with TOKEN.
--
-- Each thread goes round the zones from its own starting point (thread t of n starts at zone
-- (t-1)·#zones/n): threads that all started at the first zone would move in lockstep and send
-- their requests to the same zone at the same moment, queueing on its lock — an artefact of the
-- load generator, not what ten independent clients of ten zones do. With one zone every request
-- still goes to it.
local zones = {}
for z in string.gmatch(os.getenv("ZONES"), "[^,]+") do table.insert(zones, z) end
local token = os.getenv("TOKEN")
local counter = 0
local threads = {}

-- Runs in the main state: give every thread its own number (threads share no counter).
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  -- `threads` is only known in the main state; wrk's thread count comes from the command line.
  local n = tonumber(os.getenv("WRK_THREADS") or "1")
  counter = math.floor((tid - 1) * #zones / n)
end

function request()
  counter = counter + 1
  local zone = zones[(counter % #zones) + 1]
  local name = string.format("r%d-%d-%d", os.time(), tid, counter)
  local body = string.format('{"type":"A","name":"%s","data":{"address":"192.0.2.%d"}}', name, counter % 250 + 1)
  return wrk.format("POST", "/api/v1/zones/" .. zone .. "/records",
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
end
