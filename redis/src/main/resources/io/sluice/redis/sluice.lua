-- Sluice: every algorithm of io.sluice.core.algorithm as a Lua twin, and the all-or-nothing evaluation of one
-- request, as MemoryStore does it. Runs on Redis 6.2 and 7.x (and Valkey); uses no command newer than 6.2.
--
-- Numbers are IEEE doubles: every value stays below 2^53 (Policy caps capacity x interval at 2^52 and every other
-- span at 366 days, so a stored time now + capacity x interval stays below 2^53 until about 2112), integer division of non-negatives is math.floor(a / b),
-- and the two places that compute in doubles (the sliding window's weight, warm-up) do the same operations in the
-- same order as the Java code, so both agree to the microsecond.
--
-- Speed: the body of this script runs on every call, so the common algorithms (GCRA, token bucket, fixed window,
-- leaky bucket) are inline code that creates no function and, for one check, no table besides the reply; the others
-- live in library(), whose functions are created only by a request that needs them (mode 'E'). The keys are read by
-- one GET (one check) or one MGET, each changed state written by one PSETEX.
--
-- States of GCRA, the token bucket, the fixed window and the leaky bucket are decimal integers, so Redis stores
-- them with its integer encoding (no string allocation). Every number is below 2^53 < 10^16 (see above), so it has at
-- most 16 digits: GCRA's state is its bare TAT (at most 16 characters); the others are at least 17 characters and start with
-- a digit naming the algorithm, so a key holding another algorithm's state (a rule whose algorithm changed) reads as
-- a fresh key, as in MemoryStore:
--   tat                                                             GCRA
--   '1' .. windowStart (16 digits, zero-padded) .. count            fixed window
--   '3' .. last (16 digits, zero-padded) .. tokens                  token bucket
--   '4' .. emptyAt (16 digits, zero-padded)                         leaky bucket
-- (a state too long for a 64-bit integer, such as a count of more than two digits, is still exact: Redis then keeps
-- it as a string). The sliding window and warm-up keep tagged strings ('s:ws:cur:prev', 'w:stored:next'); the
-- sliding log and concurrency are sorted sets.
--
-- ARGV[1] = the mode, then the time: now in epoch microseconds, nothing to read Redis TIME ('e', 'e1700000000000000')
--   modes: 'e' evaluate, every check inline; 'E' evaluate, some check needs library(); 'r' release; 'g' evaluate one
--   enforced GCRA check of cost 1 (the default algorithm and cost: the most common request)
-- 'g': ARGV[2], ARGV[3] = capacity, interval; the same step and reply as 'e' gives that check, in fewer instructions
--   (about 0.35 µs less of Redis's time per call, a twelfth of it)
-- evaluate: in mode 'E' ARGV[2] = request id (unique; used by the sliding log only), then per check (KEYS[i]):
--   code and cost in one field (the algorithm's letter, upper case for a shadow check, then the cost unless it is
--   1: 'g', 'G', 'g0', 't5'), then the policy's numbers for that algorithm:
--     'g' GCRA, 't' token bucket:   capacity, interval
--     'k' leaky bucket:             capacity, interval, max-wait, delay threshold
--     'f' fixed window:             limit, period, stagger offset
--     's' sliding window:           limit, period
--     'w' warm-up:                  limit, period, warm-up, cold factor
--     'l' sliding log:              limit, period, min-interval, count-rejected (0/1)
--     'c' concurrency:              limit, lease timeout, lease id
--   returns 4 integers per check: 0 when denied, else 1 + the delay; remaining, reset-after, retry-after (-1: never)
--   (the limit is the policy's, the client knows it); one check admitted at once (no delay, so retry-after 0) is
--   one integer instead, not in a table: reset-after x (limit + 1) + remaining, if below 2^53 (so exact in a double).
--   A table of four integers costs about 0.4 µs of Redis's time, a tenth of the whole call; for several checks the
--   packing costs what it saves
-- release: per key KEYS[i], ARGV[1 + i] = lease id; returns the number of leases released

local A = ARGV
local floor, ceil, byte, sub, format = math.floor, math.ceil, string.byte, string.sub, string.format
local mode = A[1]
local now
-- TTLs run on Redis's clock; with the application's time they get a minute of slack for the skew between the two
local slack = 0
if #mode == 1 then
  redis.replicate_commands()
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(sub(mode, 2))
  slack = 60000
  mode = sub(mode, 1, 1)
end

if mode == 'g' then
  -- as the GCRA branch below, for cost 1 (never above the capacity, never 0), one enforced check, nothing else; a
  -- change to either is a change to both (RedisDifferentialIT holds each to MemoryStore)
  local cap, iv = tonumber(A[2]), tonumber(A[3])
  local v = redis.pcall('GET', KEYS[1])
  local ahead = 0
  if type(v) == 'string' and #v <= 16 then
    local s = tonumber(v)
    if s and s > now then ahead = s - now end
  end
  local full, need = cap * iv, ahead + iv
  if need <= full then
    redis.call('PSETEX', KEYS[1], ceil(need / 1000) + slack, now + need)
    local rem, m = floor((full - need) / iv), cap + 1
    if need <= 9007199254740992 / m - 2 then return need * m + rem end
    return {1, rem, need, 0}
  end
  -- need - full without need itself, which is above 2^53 (inexact) when a clock that went back left ahead > full
  local rem, retry = floor((full - ahead) / iv), ahead - (cap - 1) * iv
  if rem < 0 then rem = 0 end
  -- at least 1, as the general epilogue: a state another program wrote may be fractional ('1000.5'), and Redis
  -- would truncate a retry-after of 0.5 to 0
  if retry < 1 then retry = 1 end
  return {0, rem, ahead, retry}
end

-- the algorithms that are not inline: created only when a request needs one of them (creating this closure costs
-- its upvalues on every call)
local library = nil
if mode ~= 'e' then
library = function()
  local NEVER = -1
  local function fdiv(a, b) return floor(a / b) end
  local function fmt(x) return format('%.0f', x) end
  local function max(a, b) if a > b then return a end return b end
  local function min(a, b) if a < b then return a end return b end
  local function ttl_ms(micros) return max(1, ceil(max(1, micros) / 1000)) + slack end
  local function allow(limit, remaining, reset) return {1, limit, remaining, reset, 0, 0} end
  local function deny(limit, remaining, reset, retry)
    if retry ~= NEVER and retry < 1 then retry = 1 end
    return {0, limit, remaining, reset, retry, 0}
  end

  -- tagged string states "tag:a:b:c"; a state of another algorithm (or another type) reads as a fresh key
  -- (also a value that is not n numbers: something else wrote the key; it must not make the script fail)
  local function parse(v, tag, n)
    if type(v) ~= 'string' or sub(v, 1, 2) ~= tag .. ':' then return nil end
    local s = {}
    for part in string.gmatch(sub(v, 3), '[^:]+') do
      local x = tonumber(part)
      if x == nil then return nil end
      s[#s + 1] = x
    end
    if #s ~= n then return nil end
    return s
  end

  local lib = {ttl_ms = ttl_ms}

  -- sliding window counter: {windowStart, current, previous}
  local function weighted(prev, elapsed, period)
    if prev == 0 then return 0 end
    return floor(prev * (period - elapsed) / period)
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
    local guess = period - floor((room + 1) * period / prev) + 1
    local e = min(period, max(from + 1, guess))
    while e < period and weighted(prev, e, period) > room do e = e + 1 end
    while e - 1 > from and weighted(prev, e - 1, period) <= room do e = e - 1 end
    return e
  end
  -- returns outcome, new state value (nil: no write), its TTL in ms
  function lib.sliding(v, nowMicros, cost, limit, period)
    local state = parse(v, 's', 3)
    local s = sw_roll(state, nowMicros, period)
    local now = max(nowMicros, s[1])
    local elapsed = now - s[1]
    local used = weighted(s[3], elapsed, period) + s[2]
    local reset = sw_reset(s, nowMicros, period)
    if cost > limit then return deny(limit, max(0, limit - used), reset, NEVER) end
    if used + cost > limit then
      local room = limit - s[2] - cost
      local at
      if room >= 0 then at = sw_first_fit(s[3], room, elapsed, period)
      else at = period + sw_first_fit(s[2], limit - cost, 0, period) end
      return deny(limit, max(0, limit - used), reset, at - (nowMicros - s[1]))
    end
    if cost == 0 then return allow(limit, limit - used, reset) end
    local after = {s[1], s[2] + cost, s[3]}
    local r = sw_reset(after, nowMicros, period)
    return allow(limit, limit - used - cost, r),
           's:' .. fmt(after[1]) .. ':' .. fmt(after[2]) .. ':' .. fmt(after[3]), ttl_ms(max(1, r))
  end

  -- warm-up (Guava's SmoothWarmingUp): {storedPermits, nextFree}
  local function curve(limit, period, warmup, cold_factor)
    local stable = period / limit
    local cold = stable * cold_factor
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
      micros = floor(take * length / 2.0)
      take_total = take_total - take
    end
    micros = micros + floor(c.stable * take_total)
    return micros
  end
  function lib.warm(v, now, cost, limit, period, warmup, cold)
    local state = parse(v, 'w', 2)
    local nxt = now
    if state then nxt = state[2] end
    if cost > limit then
      local r = 0
      if nxt <= now then r = 1 end
      return deny(limit, r, max(0, nxt - now), NEVER)
    end
    if cost == 0 then
      local r = 0
      if nxt <= now then r = 1 end
      return allow(limit, r, max(0, nxt - now))
    end
    if nxt > now then return deny(limit, 0, nxt - now, nxt - now) end
    local c = curve(limit, period, warmup, cold)
    local stored = c.max_permits
    if state then stored = state[1] end
    if now > nxt then
      stored = math.min(c.max_permits, stored + (now - nxt) / c.cool_down)
      nxt = now
    end
    local spend = math.min(cost, stored)
    local fresh = cost - spend
    local wait = stored_wait(c, stored, spend) + floor(fresh * c.stable)
    local after1, after2 = stored - spend, nxt + wait
    local untl = after2 - now
    local r = 0
    if untl <= 0 then r = 1 end
    local cool_for = (c.max_permits - after1) * c.cool_down
    return allow(limit, r, max(0, untl)), 'w:' .. format('%.17g', after1) .. ':' .. fmt(after2),
           ttl_ms(max(1, after2 + ceil(cool_for) - now))
  end

  -- the sliding log and concurrency both keep sorted sets: a log member is "time:..." scored by that time, a lease
  -- "weight:lease-id" scored by its expiry (never equal to its weight). Returns 'log', 'lease', or nil (no sorted set
  -- or an empty one); a key of the other kind reads as a fresh key, as in MemoryStore, and is replaced on write.
  local function zkind(key)
    local r = redis.pcall('ZRANGE', key, 0, 0, 'WITHSCORES')
    if type(r) ~= 'table' or r.err or #r == 0 then return nil end
    local head = tonumber(string.match(r[1], '^(%d+):'))
    if head ~= nil and head == tonumber(r[2]) then return 'log' end
    return 'lease'
  end

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
  function lib.log(key, nowMicros, cost, p)
    local limit, period = p.limit, p.period
    local newest = nil
    local live = {}
    if zkind(key) == 'lease' then p.foreign = true else newest = log_newest(key) end
    local now = nowMicros
    if newest then now = max(nowMicros, newest) end
    if not p.foreign then live = zscores(key, '(' .. fmt(now - period), '+inf') or {} end
    local n = #live
    local reset = 0
    if n > 0 then reset = live[n] + period - nowMicros end
    if cost > limit then return deny(limit, max(0, limit - n), reset, NEVER), nil, nil end
    local gap_until = nil
    if newest and p.gap > 0 then gap_until = newest + p.gap end
    local gap_ok = cost == 0 or gap_until == nil or now >= gap_until
    local add = {now = now, cost = cost}
    if n + cost <= limit and gap_ok then
      if cost == 0 then return allow(limit, max(0, limit - n), reset), nil, nil end
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
  function lib.log_write(key, w, p, rid, index)
    local t = redis.pcall('TYPE', key)
    if type(t) == 'table' and t.ok ~= 'zset' and t.ok ~= 'none' or p.foreign then redis.call('DEL', key) end
    -- in chunks of 1000 members: unpack() of a few thousand values fails in Lua 5.1 ("too many results to unpack")
    local score = fmt(w.now)
    local i = 1
    while i <= w.cost do
      local args = {}
      local last = min(w.cost, i + 999)
      for j = i, last do
        args[#args + 1] = score
        args[#args + 1] = score .. ':' .. rid .. ':' .. index .. ':' .. j
      end
      redis.call('ZADD', key, unpack(args))
      i = last + 1
    end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(w.now - max(p.period, p.gap)))
    redis.call('ZREMRANGEBYRANK', key, 0, -(p.limit + 1))
    local newest = log_newest(key)
    redis.call('PEXPIRE', key, ttl_ms(max(newest + p.period, newest + p.gap) - w.now))
  end

  -- concurrency: a sorted set of leases scored by expiry, members "weight:lease-id"
  local function leases(key, now)
    if zkind(key) == 'log' then return {} end
    local r = redis.pcall('ZRANGEBYSCORE', key, '(' .. fmt(now), '+inf', 'WITHSCORES')
    if type(r) ~= 'table' or r.err then return {} end
    local out = {}
    for i = 1, #r, 2 do
      local weight = tonumber(string.match(r[i], '^(%d+):'))
      out[#out + 1] = {member = r[i], expiry = tonumber(r[i + 1]), weight = weight}
    end
    return out
  end
  function lib.lease(key, now, cost, limit, lease, lease_id)
    local live = leases(key, now)
    local in_flight = 0
    for i = 1, #live do in_flight = in_flight + live[i].weight end
    if cost > limit then return deny(limit, max(0, limit - in_flight), 0, NEVER), nil end
    if in_flight + cost > limit then
      local needed = in_flight + cost - limit
      local freed = 0
      local at = live[#live].expiry
      for i = 1, #live do
        freed = freed + live[i].weight
        if freed >= needed then at = live[i].expiry; break end
      end
      return deny(limit, max(0, limit - in_flight), 0, at - now), nil
    end
    if cost == 0 then return allow(limit, max(0, limit - in_flight), 0), nil end
    return allow(limit, limit - in_flight - cost, 0),
           {now = now, member = fmt(cost) .. ':' .. lease_id, expiry = now + lease}
  end
  function lib.lease_write(key, w)
    local t = redis.pcall('TYPE', key)
    if type(t) == 'table' and t.ok ~= 'zset' and t.ok ~= 'none' or zkind(key) == 'log' then redis.call('DEL', key) end
    redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(w.now))
    redis.call('ZADD', key, fmt(w.expiry), w.member)
    local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
    redis.call('PEXPIRE', key, ttl_ms(tonumber(last[2]) - w.now))
  end
  function lib.release()
    local released = 0
    for i = 1, #KEYS do
      local key, id = KEYS[i], A[1 + i]
      local r = redis.pcall('ZRANGE', key, 0, -1)
      if type(r) == 'table' and not r.err and zkind(key) ~= 'log' then
        redis.call('ZREMRANGEBYSCORE', key, '-inf', fmt(now))
        for j = 1, #r do
          if sub(r[j], -(#id + 1)) == ':' .. id then
            released = released + redis.call('ZREM', key, r[j])
          end
        end
        local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
        if #last > 0 then redis.call('PEXPIRE', key, ttl_ms(tonumber(last[2]) - now)) end
      end
    end
    return released
  end
  return lib
end
if mode == 'r' then return library().release() end
end

local n = #KEYS
-- a key of another type (a sorted set) reads as nil in MGET, where GET would fail
local v1, vals = false, nil
if n == 1 then
  v1 = redis.pcall('GET', KEYS[1])
  if type(v1) ~= 'string' then v1 = false end
else
  vals = redis.call('MGET', unpack(KEYS))
end
-- tables sized up front: growing one re-allocates it at every power of two
-- one check's outcome stays in locals (o1..o4, lim1): its reply is often one integer, and then no table is made
local out
local o1, o2, o3, o4, lim1 = 0, 0, 0, 0, 0
if n == 1 then out = nil
elseif n <= 4 then out = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
else out = {} end
-- states to write if the request is admitted: [i] value, [n + i] TTL; with one check pv, pt
local pend, pv, pt = nil, nil, nil
local lib, special = nil, nil       -- library(); sliding-log and concurrency writes
local denied = false
local a = 2
if mode == 'E' then a = 3 end
for i = 1, n do
  local head = A[a]
  local code = byte(head)
  local shadow = code < 97
  if shadow then code = code + 32 end
  local cost = 1
  if #head > 1 then cost = tonumber(sub(head, 2)) end
  local v = v1
  if vals then v = vals[i] end
  local r = (i - 1) * 4
  -- the outcome: allowed (1/0), remaining, reset-after, retry-after (-1: never; else at least 1), delay
  local ok, rem, reset, retry, delay = 0, 0, 0, -1, 0
  local lim = 0       -- the limit the client knows (capacity or limit), the radix of the packed reply
  local value, ttl = nil, 0
  if code == 103 or code == 107 then
    -- GCRA ('g': one theoretical arrival time) and leaky bucket ('k': the time the bucket is empty)
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    lim = cap
    local maxwait, dthreshold = 0, 0
    local s = nil
    if code == 107 then
      maxwait, dthreshold = tonumber(A[a + 3]), tonumber(A[a + 4])
      a = a + 5
      if v and #v == 17 and byte(v, 1) == 52 then s = tonumber(sub(v, 2)) end
    else
      a = a + 3
      if v and #v <= 16 then s = tonumber(v) end
    end
    -- times relative to now, so that intermediates stay below 2^53 and exact: ahead = base - now is at most capacity x
    -- interval (2^52) and below 2^53 even after a clock went back, while base + cost x interval itself may pass 2^53.
    -- need = ahead + cost x interval is exact whenever it is at most full (admitted); above it, possibly not, so a
    -- denial's need - full is computed as ahead - (capacity - cost) x interval
    local full = cap * iv
    local ahead = 0
    if s and s > now then ahead = s - now end
    local need = ahead + cost * iv
    if cost > cap then
      rem = floor((full - ahead) / iv)
      reset = ahead
    elseif cost == 0 then
      ok = 1
      rem = floor((full - ahead) / iv)
      reset = ahead
      retry = 0
    elseif code == 103 then
      if need <= full then
        ok = 1
        rem = floor((full - need) / iv)
        reset = need
        retry = 0
        value, ttl = now + need, need
      else
        rem = floor((full - ahead) / iv)
        reset = ahead
        retry = ahead - (cap - cost) * iv       -- need - full, exact where need is not (see need above)
      end
    else
      local fits = ahead - (cap - cost) * iv     -- need - full, exact where need is not
      local retry_in = fits
      if maxwait > 0 then
        delay = ahead - dthreshold * iv
        if delay < 0 then delay = 0 end
        retry_in = ahead - dthreshold * iv - maxwait
        if fits > retry_in then retry_in = fits end
      end
      if fits <= 0 and delay <= maxwait then
        ok = 1
        rem = floor((full - need) / iv)
        reset = need
        retry = 0
        value, ttl = format('4%016d', now + need), need
      else
        delay = 0
        rem = floor((full - ahead) / iv)
        reset = ahead
        retry = retry_in
      end
    end
    if rem < 0 then rem = 0 end
  elseif code == 116 then
    -- token bucket ('t'): {tokens, last}, refilled lazily one token per interval
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    lim = cap
    a = a + 3
    local tokens, last = cap, now
    if v and byte(v, 1) == 51 and #v > 17 then
      local l, t = tonumber(sub(v, 2, 17)), tonumber(sub(v, 18))
      -- tokens above the capacity (a capacity lowered under the same rule) count as a full bucket's
      if l and t and t > cap then t = cap end
      if l and t and now <= l then
        tokens, last = t, l
      elseif l and t then
        local add = floor((now - l) / iv)
        if add < cap - t then tokens, last = t + add, l + add * iv end
      end
    end
    -- full after: 0 when full, else the time the missing tokens take
    if cost > cap or tokens < cost then
      rem = tokens
      if tokens < cap then reset = (cap - tokens) * iv - (now - last); if reset < 0 then reset = 0 end end
      if cost <= cap then retry = (cost - tokens) * iv - (now - last) end
    else
      ok = 1
      retry = 0
      rem = tokens - cost
      if rem < cap then reset = (cap - rem) * iv - (now - last); if reset < 0 then reset = 0 end end
      if cost > 0 then value, ttl = format('3%016d%d', last, rem), reset end
    end
  elseif code == 102 then
    -- fixed window ('f'): {windowStart, count}; the time is offset per key when staggered
    local limit, period, at = tonumber(A[a + 1]), tonumber(A[a + 2]), now + tonumber(A[a + 3])
    lim = limit
    a = a + 4
    local ws = floor(at / period) * period
    local count = 0
    if v and byte(v, 1) == 49 and #v > 17 then
      local w, c = tonumber(sub(v, 2, 17)), tonumber(sub(v, 18))
      if w and c and w >= ws then ws, count = w, c end
    end
    local wend = ws + period - at
    rem = limit - count
    if rem < 0 then rem = 0 end
    if cost > limit then
      if count > 0 then reset = wend end
    elseif count + cost > limit then
      reset, retry = wend, wend
    elseif cost == 0 then
      ok, retry = 1, 0
      if count > 0 then reset = wend end
    else
      ok, retry = 1, 0
      rem = limit - count - cost
      reset = wend
      value, ttl = format('1%016d%d', ws, count + cost), wend
    end
  else
    if not library then return redis.error_reply("algorithm code '" .. A[a] .. "' needs mode 'E'") end
    lib = lib or library()
    local o, w, d
    if code == 115 then
      o, value, ttl = lib.sliding(v, now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]))
      a = a + 3
    elseif code == 119 then
      o, value, ttl = lib.warm(v, now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]), tonumber(A[a + 3]),
                               tonumber(A[a + 4]))
      a = a + 5
    elseif code == 108 then
      local p = {limit = tonumber(A[a + 1]), period = tonumber(A[a + 2]), gap = tonumber(A[a + 3]),
                 counts = tonumber(A[a + 4])}
      o, w, d = lib.log(KEYS[i], now, cost, p)
      special = special or {}
      special[i] = {kind = 'log', p = p, admit = w, deny = d}
      a = a + 5
    elseif code == 99 then
      o, w = lib.lease(KEYS[i], now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]), A[a + 3])
      special = special or {}
      special[i] = {kind = 'lease', admit = w}
      a = a + 4
    else
      return redis.error_reply('unknown algorithm code ' .. tostring(A[a]))
    end
    ok, lim, rem, reset, retry, delay = o[1], o[2], o[3], o[4], o[5], o[6]
    if value then ttl = -ttl end    -- already in ms
  end
  if ok == 0 then
    if retry ~= -1 and retry < 1 then retry = 1 end
    if not shadow then denied = true end
  end
  if ok == 1 then ok = 1 + delay end
  if n == 1 then o1, o2, o3, o4, lim1 = ok, rem, reset, retry, lim
  else out[r + 1], out[r + 2], out[r + 3], out[r + 4] = ok, rem, reset, retry end
  if value then
    if n == 1 then pv, pt = value, ttl
    else
      if not pend then
        if n <= 4 then pend = {false, false, false, false, false, false, false, false} else pend = {} end
      end
      pend[i], pend[n + i] = value, ttl
    end
  end
end

for i = 1, n do
  local admitted = not denied
  if out then admitted = admitted and out[(i - 1) * 4 + 1] > 0 else admitted = admitted and o1 > 0 end
  local value, ttl = pv, pt
  if pend then value, ttl = pend[i], pend[n + i] end
  if value and admitted then
    if ttl < 0 then ttl = -ttl
    else
      -- TTL in ms: the time the state matters, at least 1 ms, plus the slack for the application's clock
      if ttl < 1 then ttl = 1 end
      ttl = ceil(ttl / 1000) + slack
    end
    redis.call('PSETEX', KEYS[i], ttl, value)
  elseif special and special[i] then
    local s = special[i]
    if s.kind == 'log' then
      local w = s.deny
      if admitted then w = s.admit end
      if w then lib.log_write(KEYS[i], w, s.p, A[2], i) end
    elseif admitted and s.admit then
      lib.lease_write(KEYS[i], s.admit)
    end
  end
end
-- one check admitted at once: packed when reset x m + rem < 2^53 (2^53 / m is within half a unit, so 2 below it
-- is safe)
if n == 1 then
  if o1 == 1 and o2 >= 0 and o2 <= lim1 and o3 >= 0 then
    local m = lim1 + 1
    if o3 <= 9007199254740992 / m - 2 then return o3 * m + o2 end
  end
  return {o1, o2, o3, o4}
end
for i = 4 * n + 1, #out do out[i] = nil end     -- the unused tail of a table sized for 4 checks
return out
