-- sliding-log.lua: the Redis twin of SlidingLog.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: limit, period, min-interval, count-rejected
-- (0/1). State: a sorted set of timestamps, one member 'time:request-id:check:n' per permit scored by its time, at
-- most the limit (the request id is the skeleton's rid, its request's in a batch; Definition.namesMembers).

--@ library
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
    -- denied by the minimum interval: nothing can be used before it passes (remaining 0)
    local rem = 0
    if gap_ok then rem = max(0, limit - n) end
    return deny(limit, rem, reset, retry_at - nowMicros), nil, on_denied
  end
  function lib.log_write(key, w, p, index)
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

--@ step
      local p = {limit = tonumber(A[a + 1]), period = tonumber(A[a + 2]), gap = tonumber(A[a + 3]),
                 counts = tonumber(A[a + 4])}
      local w, d
      o, w, d = lib.log(key, now, cost, p)
      special = special or {}
      special[i] = {lib.log_write, w, d, p}
      a = a + 5
