-- wrk script for API record writes: every request POSTs a new A record with a name no other
-- request uses (thread number and counter), so each is one create, one serial bump and one event.
-- Environment: ZONE (the zone id), API_KEY.
local threads = {}
local zone = os.getenv("ZONE")
local key = os.getenv("API_KEY")

function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  path = "/v1/dns/zones/" .. zone .. "/records"
  headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
end

function request()
  counter = counter + 1
  local body = string.format('{"type":"A","name":"t%d-w%d","content":"10.%d.%d.%d","ttl":300}',
    tid, counter, tid % 256, math.floor(counter / 256) % 256, counter % 256)
  return wrk.format("POST", path, headers, body)
end
