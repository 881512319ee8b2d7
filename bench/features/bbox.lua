-- Random small bounding boxes over the synthetic parcels (about 100 parcels each).
-- PATH_PREFIX and EXTRA are set from the environment by run.sh.
local prefix = os.getenv("PATH_PREFIX")
local extra = os.getenv("EXTRA") or ""
local key = os.getenv("API_KEY")
math.randomseed(os.time())
if key and key ~= "" then
  wrk.headers["X-Api-Key"] = key
end
request = function()
  local cols, rows = 400, 250
  local lon = 151.0 + math.random() * (cols * 0.001 - 0.01)
  local lat = -34.0 + math.random() * (rows * 0.001 - 0.01)
  local bbox = string.format("%.5f,%.5f,%.5f,%.5f", lon, lat, lon + 0.01, lat + 0.01)
  return wrk.format("GET", prefix .. "?bbox=" .. bbox .. "&limit=100" .. extra)
end
