-- Sluice: every algorithm of io.sluice.core.algorithm as a Lua twin, and the all-or-nothing evaluation of one
-- request, as MemoryStore does it. Runs on Redis 6.2 and 7.x (and Valkey); uses no command newer than 6.2.
--
-- Numbers are IEEE doubles: every value stays below 2^53, integer division of non-negatives is math.floor(a / b),
-- and the two places that compute in doubles (the sliding window's weight, warm-up) do the same operations in the
-- same order as the Java code, so both agree to the microsecond.
--
-- ARGV[1] = 'e' (evaluate) | 'r' (release)
-- ARGV[2] = now in epoch microseconds, or '' to read Redis TIME
-- evaluate: ARGV[3] = request id (unique), then per check (KEYS[i]) 15 fields:
--   algorithm, limit, period, burst, min-interval, count-rejected (0/1), warm-up, cold-factor, lease timeout,
--   max-wait, delay, stagger offset, cost, shadow (0/1), lease id ('' when none)
--   returns 6 integers per check: allowed (1/0), limit, remaining, reset-after, retry-after (-1: never), delay
-- release: per key KEYS[i], ARGV[2 + i] = lease id; returns the number of leases released

local mode = ARGV[1]
local now
-- TTLs run on Redis's clock; with the application's time they get a minute of slack for the skew between the two
local ttl_slack_ms = 0
if ARGV[2] == '' then
  redis.replicate_commands()
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
  ttl_slack_ms = 60000
end

local NEVER = -1
local function fdiv(a, b) return math.floor(a / b) end
local function fmt(x) return string.format('%.0f', x) end
local function max(a, b) if a > b then return a end return b end
local function min(a, b) if a < b then return a end return b end

local function allow(limit, remaining, reset) return {1, limit, remaining, reset, 0, 0} end
local function deny(limit, remaining, reset, retry)
  if retry ~= NEVER and retry < 1 then retry = 1 end
  return {0, limit, remaining, reset, retry, 0}
end

local function capacity(p) if p.burst > 0 then return p.burst end return p.limit end
local function interval(p) return max(1, fdiv(p.period, p.limit)) end

-- string states: "tag:a:b:c"; a state of another algorithm (or another type) reads as a fresh key
local function read_string(key, tag)
  local v = redis.pcall('GET', key)
  if type(v) ~= 'string' then return nil end
  local parts = {}
  for part in string.gmatch(v, '[^:]+') do parts[#parts + 1] = part end
  if parts[1] ~= tag then return nil end
  local s = {}
  for i = 2, #parts do s[i - 1] = tonumber(parts[i]) end
  return s
end

local function ttl_ms(micros) return max(1, math.ceil(max(1, micros) / 1000)) + ttl_slack_ms end

local function write_string(key, tag, s, ttl)
  local v = tag
  for i = 1, #s do
    if tag == 'w' and i == 1 then v = v .. ':' .. string.format('%.17g', s[i]) else v = v .. ':' .. fmt(s[i]) end
  end
  redis.call('SET', key, v, 'PX', ttl_ms(ttl))
end

-- fixed window: {windowStart, count}
local fixed = {tag = 'f'}
function fixed.step(s, now, cost, p)
  local period, limit = p.period, p.limit
  local ws = fdiv(now, period) * period
  local count = 0
  if s and s[1] >= ws then ws = s[1]; count = s[2] end
  local wend = ws + period - now
  if cost > limit then
    local reset = 0
    if count > 0 then reset = wend end
    return s, deny(limit, limit - count, reset, NEVER)
  end
  if count + cost > limit then return s, deny(limit, limit - count, wend, wend) end
  if cost == 0 then
    local reset = 0
    if count > 0 then reset = wend end
    return s, allow(limit, limit - count, reset)
  end
  return {ws, count + cost}, allow(limit, limit - count - cost, wend)
end
function fixed.ttl(s, now, p) return max(1, s[1] + p.period - now) end

-- sliding window counter: {windowStart, current, previous}
local sliding = {tag = 's'}
local function weighted(prev, elapsed, period)
  if prev == 0 then return 0 end
  return math.floor(prev * (period - elapsed) / period)
end
local function sw_roll(s, now, period)
  local ws = fdiv(now, period) * period
  if s == nil or s[1] < ws - period then return {ws, 0, 0} end
  if s[1] == ws - period then return {ws, 0, s[2]} end
  return s
end
local function sw_reset(s, now, period)
  if s[2] > 0 then return max(0, s[1] + 2 * period - now) end
  if s[3] > 0 then return max(0, s[1] + period - now) end
  return 0
end
local function sw_first_fit(prev, room, from, period)
  if weighted(prev, from, period) <= room then return from end
  local guess = period - math.floor((room + 1) * period / prev) + 1
  local e = min(period, max(from + 1, guess))
  while e < period and weighted(prev, e, period) > room do e = e + 1 end
  while e - 1 > from and weighted(prev, e - 1, period) <= room do e = e - 1 end
  return e
end
function sliding.step(state, nowMicros, cost, p)
  local period, limit = p.period, p.limit
  local s = sw_roll(state, nowMicros, period)
  local now = max(nowMicros, s[1])
  local elapsed = now - s[1]
  local used = weighted(s[3], elapsed, period) + s[2]
  local reset = sw_reset(s, nowMicros, period)
  if cost > limit then return state, deny(limit, max(0, limit - used), reset, NEVER) end
  if used + cost > limit then
    local room = limit - s[2] - cost
    local at
    if room >= 0 then at = sw_first_fit(s[3], room, elapsed, period)
    else at = period + sw_first_fit(s[2], limit - cost, 0, period) end
    return state, deny(limit, max(0, limit - used), reset, at - (nowMicros - s[1]))
  end
  if cost == 0 then return state, allow(limit, limit - used, reset) end
  local after = {s[1], s[2] + cost, s[3]}
  return after, allow(limit, limit - used - cost, sw_reset(after, nowMicros, period))
end
function sliding.ttl(s, now, p) return max(1, sw_reset(s, now, p.period)) end

-- token bucket: {tokens, last}
local bucket = {tag = 't'}
local function tb_refill(s, now, cap, iv)
  if s == nil then return {cap, now} end
  if now <= s[2] then return s end
  local add = fdiv(now - s[2], iv)
  if add >= cap - s[1] then return {cap, now} end
  return {s[1] + add, s[2] + add * iv}
end
local function tb_full_after(s, now, cap, iv)
  if s[1] >= cap then return 0 end
  return max(0, s[2] + (cap - s[1]) * iv - now)
end
function bucket.step(state, now, cost, p)
  local cap, iv = capacity(p), interval(p)
  local s = tb_refill(state, now, cap, iv)
  if cost > cap then return state, deny(cap, s[1], tb_full_after(s, now, cap, iv), NEVER) end
  if s[1] < cost then
    return state, deny(cap, s[1], tb_full_after(s, now, cap, iv), s[2] + (cost - s[1]) * iv - now)
  end
  local after = {s[1] - cost, s[2]}
  local out = allow(cap, s[1] - cost, tb_full_after(after, now, cap, iv))
  if cost == 0 then return state, out end
  return after, out
end
function bucket.ttl(s, now, p) return max(1, tb_full_after(s, now, capacity(p), interval(p))) end

-- GCRA: {tat}
local gcra = {tag = 'g'}
local function remaining_of(now, full, t, iv) return max(0, fdiv(now + full - t, iv)) end
function gcra.step(state, now, cost, p)
  local iv, cap = interval(p), capacity(p)
  local tolerance = cap * iv
  local tat = now
  if state then tat = max(state[1], now) end
  if cost > cap then return state, deny(cap, remaining_of(now, tolerance, tat, iv), tat - now, NEVER) end
  local new_tat = tat + cost * iv
  local allow_at = new_tat - tolerance
  if cost == 0 or allow_at <= now then
    local after = {new_tat}
    if cost == 0 then after = state end
    return after, allow(cap, remaining_of(now, tolerance, new_tat, iv), new_tat - now)
  end
  return state, deny(cap, remaining_of(now, tolerance, tat, iv), tat - now, allow_at - now)
end
function gcra.ttl(s, now, p) return max(1, s[1] - now) end

-- leaky bucket: {emptyAt}; a meter, or a queue with max-wait and delay
local leaky = {tag = 'l'}
function leaky.step(state, now, cost, p)
  local iv, cap = interval(p), capacity(p)
  local full = cap * iv
  local base = now
  if state then base = max(state[1], now) end
  if cost > cap then return state, deny(cap, remaining_of(now, full, base, iv), base - now, NEVER) end
  local new_empty = base + cost * iv
  if cost == 0 then return state, allow(cap, remaining_of(now, full, base, iv), base - now) end
  local fits_at = new_empty - full
  local delay = 0
  local retry_at = fits_at
  if p.maxwait > 0 then
    delay = max(0, base - now - p.delay * iv)
    retry_at = max(fits_at, base - p.delay * iv - p.maxwait)
  end
  if fits_at <= now and delay <= p.maxwait then
    return {new_empty}, {1, cap, remaining_of(now, full, new_empty, iv), new_empty - now, 0, delay}
  end
  return state, deny(cap, remaining_of(now, full, base, iv), base - now, retry_at - now)
end
function leaky.ttl(s, now, p) return max(1, s[1] - now) end

-- warm-up (Guava's SmoothWarmingUp): {storedPermits, nextFree}
local warm = {tag = 'w'}
local function curve(p)
  local stable = p.period / p.limit
  local cold = stable * p.cold
  local warmup = p.warmup
  local threshold = 0.5 * warmup / stable
  local max_permits = threshold + 2.0 * warmup / (stable + cold)
  local slope = (cold - stable) / (max_permits - threshold)
  return {stable = stable, threshold = threshold, max_permits = max_permits, slope = slope,
          cool_down = warmup / max_permits}
end
local function permits_to_time(c, permits) return c.stable + permits * c.slope end
local function stored_wait(c, stored, take_total)
  local above = stored - c.threshold
  local micros = 0
  if above > 0.0 then
    local take = math.min(above, take_total)
    local length = permits_to_time(c, above) + permits_to_time(c, above - take)
    micros = math.floor(take * length / 2.0)
    take_total = take_total - take
  end
  micros = micros + math.floor(c.stable * take_total)
  return micros
end
function warm.step(state, now, cost, p)
  local limit = p.limit
  local nxt = now
  if state then nxt = state[2] end
  if cost > limit then
    local r = 0
    if nxt <= now then r = 1 end
    return state, deny(limit, r, max(0, nxt - now), NEVER)
  end
  if cost == 0 then
    local r = 0
    if nxt <= now then r = 1 end
    return state, allow(limit, r, max(0, nxt - now))
  end
  if nxt > now then return state, deny(limit, 0, nxt - now, nxt - now) end
  local c = curve(p)
  local stored = c.max_permits
  if state then stored = state[1] end
  if now > nxt then
    stored = math.min(c.max_permits, stored + (now - nxt) / c.cool_down)
    nxt = now
  end
  local spend = math.min(cost, stored)
  local fresh = cost - spend
  local wait = stored_wait(c, stored, spend) + math.floor(fresh * c.stable)
  local after = {stored - spend, nxt + wait}
  local untl = after[2] - now
  local r = 0
  if untl <= 0 then r = 1 end
  return after, allow(limit, r, max(0, untl))
end
function warm.ttl(s, now, p)
  local c = curve(p)
  local cool_for = (c.max_permits - s[1]) * c.cool_down
  return max(1, s[2] + math.ceil(cool_for) - now)
end

local strings = {['fixed-window'] = fixed, ['sliding-window'] = sliding, ['token-bucket'] = bucket,
                 ['gcra'] = gcra, ['leaky-bucket'] = leaky, ['warm-up'] = warm}

-- sliding log: a sorted set of timestamps (one member per permit), at most the limit
local function zscores(key, from, to)
  local r = redis.pcall('ZRANGEBYSCORE', key, from, to, 'WITHSCORES')
  if type(r) ~= 'table' or r.err then return nil end
  local out = {}
  for i = 2, #r, 2 do out[#out + 1] = tonumber(r[i]) end
  return out
end

local function log_newest(key)
  local r = redis.pcall('ZRANGE', key, -1, -1, 'WITHSCORES')
  if type(r) ~= 'table' or r.err or #r == 0 then return nil end
  return tonumber(r[2])
end

local function log_fits_at(live, cost, limit, period)
  local excess = #live + cost - limit
  if excess <= 0 then return nil end
  return live[excess] + period
end

-- returns outcome, write on admit, write on denial (nil: nothing)
local function log_step(key, nowMicros, cost, p)
  local limit, period = p.limit, p.period
  local newest = log_newest(key)
  local now = nowMicros
  if newest then now = max(nowMicros, newest) end
  local live = zscores(key, '(' .. fmt(now - period), '+inf') or {}
  local n = #live
  local reset = 0
  if n > 0 then reset = live[n] + period - nowMicros end
  if cost > limit then return deny(limit, limit - n, reset, NEVER), nil, nil end
  local gap_until = nil
  if newest and p.gap > 0 then gap_until = newest + p.gap end
  local gap_ok = cost == 0 or gap_until == nil or now >= gap_until
  local add = {kind = 'log', now = now, cost = cost}
  if n + cost <= limit and gap_ok then
    if cost == 0 then return allow(limit, limit - n, reset), nil, nil end
    -- counting rejected attempts: should another rule deny the request, the attempt is still recorded
    local recorded_anyway = nil
    if p.counts == 1 then recorded_anyway = add end
    return allow(limit, limit - n - cost, now + period - nowMicros), add, recorded_anyway
  end
  local retry_at
  local on_denied = nil
  if p.counts == 1 then
    local recorded = {}
    local keep = min(n + cost, limit)
    local from_live = max(0, keep - cost)
    for i = n - from_live + 1, n do recorded[#recorded + 1] = live[i] end
    for i = #recorded + 1, keep do recorded[i] = now end
    retry_at = log_fits_at(recorded, cost, limit, period)
    if p.gap > 0 then
      local g = now + p.gap
      if retry_at == nil or g > retry_at then retry_at = g end
    end
    reset = now + period - nowMicros
    if cost > 0 then on_denied = add end
  else
    retry_at = log_fits_at(live, cost, limit, period)
    if gap_until and (retry_at == nil or gap_until > retry_at) then retry_at = gap_until end
  end
  return deny(limit, max(0, limit - n), reset, retry_at - nowMicros), nil, on_denied
end

local function log_write(key, w, p, rid, index)
  local t = redis.pcall('TYPE', key)
  if type(t) == 'table' and t.ok ~= 'zset' and t.ok ~= 'none' then redis.call('DEL', key) end
  local args = {}
  for i = 1, w.cost do
    args[#args + 1] = fmt(w.now)
    args[#args + 1] = fmt(w.now) .. ':' .. rid .. ':' .. index .. ':' .. i
  end
  redis.call('ZADD', key, unpack(args))
  redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(w.now - max(p.period, p.gap)))
  redis.call('ZREMRANGEBYRANK', key, 0, -(p.limit + 1))
  local newest = log_newest(key)
  redis.call('PEXPIRE', key, ttl_ms(max(newest + p.period, newest + p.gap) - w.now))
end

-- concurrency: a sorted set of leases scored by expiry, members "weight:lease-id"
local function leases(key, now)
  local r = redis.pcall('ZRANGEBYSCORE', key, '(' .. fmt(now), '+inf', 'WITHSCORES')
  if type(r) ~= 'table' or r.err then return {} end
  local out = {}
  for i = 1, #r, 2 do
    local weight = tonumber(string.match(r[i], '^(%d+):'))
    out[#out + 1] = {member = r[i], expiry = tonumber(r[i + 1]), weight = weight}
  end
  return out
end

local function lease_step(key, now, cost, p, lease_id)
  local limit = p.limit
  local live = leases(key, now)
  local in_flight = 0
  for i = 1, #live do in_flight = in_flight + live[i].weight end
  if cost > limit then return deny(limit, limit - in_flight, 0, NEVER), nil end
  if in_flight + cost > limit then
    local needed = in_flight + cost - limit
    local freed = 0
    local at = live[#live].expiry
    for i = 1, #live do
      freed = freed + live[i].weight
      if freed >= needed then at = live[i].expiry; break end
    end
    return deny(limit, limit - in_flight, 0, at - now), nil
  end
  if cost == 0 then return allow(limit, limit - in_flight, 0), nil end
  return allow(limit, limit - in_flight - cost, 0),
         {kind = 'lease', now = now, member = fmt(cost) .. ':' .. lease_id, expiry = now + p.lease}
end

local function lease_write(key, w)
  local t = redis.pcall('TYPE', key)
  if type(t) == 'table' and t.ok ~= 'zset' and t.ok ~= 'none' then redis.call('DEL', key) end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(w.now))
  redis.call('ZADD', key, fmt(w.expiry), w.member)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', key, ttl_ms(tonumber(last[2]) - w.now))
end

if mode == 'r' then
  local released = 0
  for i = 1, #KEYS do
    local key, id = KEYS[i], ARGV[2 + i]
    local r = redis.pcall('ZRANGE', key, 0, -1)
    if type(r) == 'table' and not r.err then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(now))
      for j = 1, #r do
        if string.sub(r[j], -(#id + 1)) == ':' .. id then
          released = released + redis.call('ZREM', key, r[j])
        end
      end
      local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
      if #last > 0 then redis.call('PEXPIRE', key, ttl_ms(tonumber(last[2]) - now)) end
    end
  end
  return released
end

local rid = ARGV[3]
local FIELDS = 15
local checks = {}
local denied = false
for i = 1, #KEYS do
  local a = 3 + (i - 1) * FIELDS
  local p = {algorithm = ARGV[a + 1], limit = tonumber(ARGV[a + 2]), period = tonumber(ARGV[a + 3]),
             burst = tonumber(ARGV[a + 4]), gap = tonumber(ARGV[a + 5]), counts = tonumber(ARGV[a + 6]),
             warmup = tonumber(ARGV[a + 7]), cold = tonumber(ARGV[a + 8]), lease = tonumber(ARGV[a + 9]),
             maxwait = tonumber(ARGV[a + 10]), delay = tonumber(ARGV[a + 11])}
  local offset, cost, shadow, lease_id = tonumber(ARGV[a + 12]), tonumber(ARGV[a + 13]), ARGV[a + 14] == '1', ARGV[a + 15]
  local key = KEYS[i]
  local c = {key = key, p = p, at = now + offset, shadow = shadow}
  local algo = strings[p.algorithm]
  if algo then
    local before = read_string(key, algo.tag)
    local after, outcome = algo.step(before, c.at, cost, p)
    c.algo, c.before, c.after, c.outcome = algo, before, after, outcome
  elseif p.algorithm == 'sliding-log' then
    c.outcome, c.on_admit, c.on_deny = log_step(key, c.at, cost, p)
  elseif p.algorithm == 'concurrency' then
    c.at = now
    c.outcome, c.on_admit = lease_step(key, now, cost, p, lease_id)
  else
    return redis.error_reply('unknown algorithm ' .. tostring(p.algorithm))
  end
  if c.outcome[1] == 0 and not shadow then denied = true end
  checks[i] = c
end

local result = {}
for i = 1, #checks do
  local c = checks[i]
  local admitted = not denied and c.outcome[1] == 1
  if c.algo then
    if admitted and c.after ~= c.before then
      write_string(c.key, c.algo.tag, c.after, c.algo.ttl(c.after, c.at, c.p))
    end
  elseif c.p.algorithm == 'sliding-log' then
    local w = c.on_deny
    if admitted then w = c.on_admit end
    if w then log_write(c.key, w, c.p, rid, i) end
  elseif admitted and c.on_admit then
    lease_write(c.key, c.on_admit)
  end
  for j = 1, 6 do result[#result + 1] = c.outcome[j] end
end
return result
