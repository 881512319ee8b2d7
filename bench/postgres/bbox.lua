-- Random 0.01° bounding boxes over the synthetic parcels of bench/features/make_parcels.py (a
-- grid of 400 columns, ROWS rows, 0.001° apart: about 100 parcels a box), limit=100.
-- PATH_PREFIX, EXTRA, API_KEY and ROWS come from the environment (run.sh).
local prefix = os.getenv("PATH_PREFIX")
local extra = os.getenv("EXTRA") or ""
local key = os.getenv("API_KEY")
local rows = tonumber(os.getenv("ROWS") or "250")
math.randomseed(os.time())
if key and key ~= "" then
  wrk.headers["X-Api-Key"] = key
end
request = function()
  local cols = 400
  local lon = 151.0 + math.random() * (cols * 0.001 - 0.01)
  local lat = -34.0 + math.random() * (rows * 0.001 - 0.01)
  local bbox = string.format("%.5f,%.5f,%.5f,%.5f", lon, lat, lon + 0.01, lat + 0.01)
  return wrk.format("GET", prefix .. "?bbox=" .. bbox .. "&limit=100" .. extra)
end
