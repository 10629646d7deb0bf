-- warm-up.lua: the Redis twin of WarmUp.java (Guava's SmoothWarmingUp); a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond: the doubles are computed in the same operations, in the
-- same order). Arguments: limit, period, warm-up, cold factor. State: the tagged string 'w:storedPermits:nextFree'.

--@ library
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

--@ step
      o, value, ttl = lib.warm(v, now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]), tonumber(A[a + 3]),
                               tonumber(A[a + 4]))
      a = a + 5
