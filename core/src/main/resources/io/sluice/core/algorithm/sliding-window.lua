-- sliding-window.lua: the Redis twin of SlidingWindowCounter.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: limit, period. State: the tagged string
-- 's:windowStart:current:previous'.

--@ library
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

--@ step
      o, value, ttl = lib.sliding(v, now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]))
      a = a + 3
