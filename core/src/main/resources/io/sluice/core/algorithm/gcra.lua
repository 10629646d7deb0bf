-- gcra.lua: the Redis twin of Gcra.java; a change to one is a change to the other (RedisDifferentialIT holds the two
-- to the microsecond). Arguments: capacity, interval. State: the bare TAT in µs, a decimal integer of at most 16
-- digits (so Redis keeps it as an integer, and every longer state is another algorithm's).
--
-- Times are relative to now, so that intermediates stay below 2^53 and exact: ahead = TAT - now is at most capacity
-- x interval (2^52) and below 2^53 even after a clock went back, while TAT + cost x interval itself may pass 2^53.
-- need = ahead + cost x interval is exact whenever it is at most full (admitted); above it, possibly not, so a
-- denial's need - full is computed as ahead - (capacity - cost) x interval.

--@ fast
-- one enforced check of cost 1 (never above the capacity, never 0), nothing else: the step below for that check
-- and the reply the skeleton gives it, in fewer instructions (about 0.35 µs less of Redis's time per call, a twelfth
-- of it); a change to either is a change to both (RedisDifferentialIT holds each to MemoryStore)
if mode == ${GCRA_MODE} then
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
  -- at least 1, as the skeleton's epilogue: a state another program wrote may be fractional ('1000.5'), and Redis
  -- would truncate a retry-after of 0.5 to 0
  if retry < 1 then retry = 1 end
  return {0, rem, ahead, retry}
end

--@ step
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    lim = cap
    a = a + 3
    local s = nil
    if v and #v <= 16 then s = tonumber(v) end
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
    elseif need <= full then
      ok = 1
      rem = floor((full - need) / iv)
      reset = need
      retry = 0
      value, ttl = now + need, need
    else
      rem = floor((full - ahead) / iv)
      reset = ahead
      retry = ahead - (cap - cost) * iv       -- need - full, exact where need is not (see above)
    end
    if rem < 0 then rem = 0 end
