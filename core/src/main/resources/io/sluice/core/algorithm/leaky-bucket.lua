-- leaky-bucket.lua: the Redis twin of LeakyBucket.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: capacity, interval, max-wait, delay threshold.
-- State: '4' .. emptyAt (16 digits, zero-padded), the time the bucket is empty. Times are relative to now, as in
-- gcra.lua: ahead = emptyAt - now, need = ahead + cost x interval, a denial's need - full is ahead - (capacity -
-- cost) x interval.

--@ step
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    local maxwait, dthreshold = tonumber(A[a + 3]), tonumber(A[a + 4])
    lim = cap
    a = a + 5
    local s = nil
    if v and #v == 17 and byte(v, 1) == ${'4'} then s = tonumber(sub(v, 2)) end
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
