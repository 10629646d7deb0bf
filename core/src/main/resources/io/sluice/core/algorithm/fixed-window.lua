-- fixed-window.lua: the Redis twin of FixedWindow.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: limit, period, then per check the stagger
-- offset of its key (0 unless staggered). State: '1' .. windowStart (16 digits, zero-padded) .. count (a count of
-- more than two digits makes it too long for a 64-bit integer: still exact, Redis then keeps a string).

--@ step
    local limit, period, at = tonumber(A[a + 1]), tonumber(A[a + 2]), now + tonumber(A[a + 3])
    lim = limit
    a = a + 4
    local ws = floor(at / period) * period
    local count = 0
    if v and byte(v, 1) == ${'1'} and #v > 17 then
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
