-- gcra.lua: the Redis twin of Gcra.java; a change to one is a change to the other (RedisDifferentialIT holds the two
-- to the microsecond). Arguments: capacity, interval. State: the bare TAT in µs, a decimal integer of at most 16
-- digits (so Redis keeps it as an integer, and every longer state is another algorithm's).
--
-- Times are relative to now, so that intermediates stay below 2^53 and exact: ahead = TAT - now is at most capacity
-- x interval (2^52) and below 2^53 even after a clock went back, while TAT + cost x interval itself may pass 2^53.
-- need = ahead + cost x interval is exact whenever it is at most full (admitted); above it, possibly not, so a
-- denial's need - full is computed as ahead - (capacity - cost) x interval.
--
-- GCRA has a fast mode (Gcra.fast()): a request of one enforced check of cost 1 runs this same step, which the
-- assembly places a second time in the skeleton's fast mode (sluice.lua, '--@ fast'), with the loop's locals
-- around it and the loop's reply (packed below 2^53, as there). So the step is the one text to change; the fast
-- mode cannot take cost 0 or a cost above the capacity (at least 1), and those branches cost it a comparison each.
-- The state is read from v, the string Redis holds (false: none), or from num, a number the frame kept: the fast
-- batch (mode 'B') keeps a key's integer state as a number from one request to the next, with v false (formatting
-- and parsing it per decision cost a quarter of a decision); every other frame passes num nil.

--@ step
    local cap, iv = tonumber(A[a + 1]), tonumber(A[a + 2])
    lim = cap
    a = a + 3
    local s = num
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
