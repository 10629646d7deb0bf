-- concurrency.lua: the Redis twin of Concurrency.java; a change to one is a change to the other
-- (RedisDifferentialIT holds the two to the microsecond). Arguments: limit, lease timeout, then per check the lease
-- id. State: a sorted set of leases scored by expiry, members 'weight:lease-id'. The script's mode 'r' releases
-- leases: lib.release.

--@ library
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
  -- returns outcome, write on admit (nil: nothing)
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

--@ step
      local w
      o, w = lib.lease(key, now, cost, tonumber(A[a + 1]), tonumber(A[a + 2]), A[a + 3])
      special = special or {}
      special[i] = {lib.lease_write, w, nil, nil}
      a = a + 4
