-- token-bucket.lua: the Redis twin of TokenBucket.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: capacity, interval. State: '3' .. last (16
-- digits, zero-padded) .. tokens, refilled lazily one token per interval.

--@ step
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    lim = cap
    a = a + 3
    local tokens, last = cap, now
    if v and byte(v, 1) == ${'3'} and #v > 17 then
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
