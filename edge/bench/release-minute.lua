-- The k6 release-spike reader (loadtest/scenarios/release-spike.js) as a wrk
-- request mix: per reader the today-up list, a weekday list (today 70 %),
-- the release work's detail, its cover and three preview page reads of the new
-- volume. API calls carry what the store's page sends (frontend/app/utils/http.ts):
-- a fresh request token, X-Signature-Version 2, the channel, no-cache headers;
-- pictures what the browser's image loader sends. Channels and user agents
-- are the k6 run's (loadtest/data/channels.json). Every request is prebuilt in
-- init (READERS readers; edge/bench/prebuilt.lua).
--
--   wrk -s edge/bench/release-minute.lua URL -- PID VOL PREVIEW_PAGES
dofile("edge/bench/prebuilt.lua")
local channels = {
  { "AW", "Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Mobile Safari/537.36" },
  { "IW", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1" },
  { "AA", "Mozilla/5.0 (Linux; Android 14; SM-S921N; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/130.0 Mobile Safari/537.36" },
  { "IA", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148" },
}
local days = { "sun", "mon", "tue", "wed", "thu", "fri", "sat" }

-- SIG=1 sends no X-Signature-Version, as an old client: the edge signs SFS1.
local sfs2 = os.getenv("SIG") ~= "1"

local function api(path, ch)
  return wrk.format("GET", path, {
    ["Accept"] = "application/json",
    ["Accept-Encoding"] = "br, gzip",
    ["X-Channel"] = ch[1],
    ["User-Agent"] = ch[2],
    ["X-Request-Token"] = token(),
    ["X-Signature-Version"] = sfs2 and "2" or nil,
    ["Cache-Control"] = "no-cache, no-store, must-revalidate",
    ["Pragma"] = "no-cache",
    ["Expires"] = "0",
  })
end

local function asset(path, ch)
  return wrk.format("GET", path, {
    ["Accept"] = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
    ["Accept-Encoding"] = "br, gzip",
    ["X-Channel"] = ch[1],
    ["User-Agent"] = ch[2],
  })
end

function init(args)
  local pid, vol, preview = args[1], args[2], tonumber(args[3] or "2")
  local readers = tonumber(os.getenv("READERS") or "2000")
  math.randomseed(os.time() + (tonumber(tostring({}):match("0x(%x+)"), 16) or 0) % 100000)
  for _ = 1, readers do
    local ch = channels[math.random(#channels)]
    local day = math.random() < 0.7 and "today" or days[math.random(#days)]
    reqs[#reqs + 1] = api("/home/api/v1/webtoon/todayup", ch)
    reqs[#reqs + 1] = api("/home/api/v1/webtoon/weekday/" .. day, ch)
    reqs[#reqs + 1] = api("/home/api/v1/products/" .. pid, ch)
    reqs[#reqs + 1] = asset("/img/cover/" .. pid .. ".svg", ch)
    for n = 1, 3 do
      reqs[#reqs + 1] = asset(string.format("/content/%s/%s/%d.svg", pid, vol, (n - 1) % preview + 1), ch)
    end
  end
end
