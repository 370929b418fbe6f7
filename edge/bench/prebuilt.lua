-- Shared by the wrk scripts here: requests are prebuilt in init() into
-- `reqs` and request() cycles through them, so wrk spends nothing per request
-- on Lua; token() makes a request token as the store's page does (32 hex).
reqs, i = {}, 0

function token()
  local t = {}
  for k = 1, 32 do t[k] = string.format("%x", math.random(0, 15)) end
  return table.concat(t)
end

function request()
  i = i % #reqs + 1
  return reqs[i]
end
