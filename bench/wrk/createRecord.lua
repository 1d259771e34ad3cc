-- wrk script: POST /api/v1/zones/{zone}/records with a fresh owner name on every request, round
-- robin over the zones in ZONES (comma-separated), authenticated with TOKEN.
local zones = {}
for z in string.gmatch(os.getenv("ZONES"), "[^,]+") do table.insert(zones, z) end
local token = os.getenv("TOKEN")
local counter = 0
local threads = 0

-- Runs in the main state: give every thread its own number (threads share no counter).
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function request()
  counter = counter + 1
  local zone = zones[(counter % #zones) + 1]
  local name = string.format("r%d-%d-%d", os.time(), tid, counter)
  local body = string.format('{"type":"A","name":"%s","data":{"address":"192.0.2.%d"}}', name, counter % 250 + 1)
  return wrk.format("POST", "/api/v1/zones/" .. zone .. "/records",
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }, body)
end
