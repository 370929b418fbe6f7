-- wrk.sh SHAPE=real: the request of the command line with a fresh
-- X-Request-Token per request, from 4,096 prebuilt ones.
dofile("edge/bench/prebuilt.lua")

function init(args)
  math.randomseed(os.time())
  for n = 1, 4096 do
    wrk.headers["X-Request-Token"] = token()
    reqs[n] = wrk.format()
  end
end
