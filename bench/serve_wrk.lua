-- wrk script for bench/serve.sh: POSTs the JSON lines of BODIES (env) to /v1/lookup, each
-- connection walking the list from its own starting point; counts non-200 answers.
local bodies = {}
local next_i = 1
local errors = 0

function init(args)
  for line in io.lines(os.getenv("BODIES")) do
    bodies[#bodies + 1] = line
  end
  next_i = math.random(#bodies)
end

function request()
  next_i = next_i % #bodies + 1
  return wrk.format("POST", "/v1/lookup", {["Content-Type"] = "application/json"}, bodies[next_i])
end

function response(status, headers, body)
  if status ~= 200 then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d seconds=%.2f rps=%.1f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f errors=%d non2xx=%d\n",
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    latency.max / 1e3, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
