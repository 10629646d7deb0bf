-- Sluice: the all-or-nothing evaluation of one request, as MemoryStore does it, around one Lua fragment per
-- algorithm (gcra.lua beside Gcra.java, and so on). RedisScript assembles this skeleton and the fragments of the
-- algorithms Algorithms registers into the one script Redis runs: each section marker line below is replaced by that
-- section of every fragment (the fast template, from its marker to 'fast end': by a fast mode per algorithm that has
-- one, around its step), and each placeholder by its value, such as an algorithm's code (see Definition and
-- ScriptAssembly). Each algorithm's decision is written once, its fragment's step. Runs on Redis 6.2 and 7.x (and
-- Valkey); uses no command newer than 6.2.
--
-- Numbers are IEEE doubles: every value stays below 2^53 (Policy caps capacity x interval at 2^52 and every other
-- span at 366 days, so a stored time now + capacity x interval stays below 2^53 until about 2112), integer division
-- of non-negatives is math.floor(a / b), and the places that compute in doubles (the sliding window's weight,
-- warm-up) do the same operations in the same order as the Java code, so both agree to the microsecond.
--
-- Speed: the body of this script runs on every call, so the common algorithms (those whose Definition is inline) are
-- code in the loop below that creates no function and, for one check, no table besides the reply; the others live
-- in library(), whose functions are created only by a request that needs them (mode 'E'). The keys are read by one
-- GET (one check) or one MGET, each changed state written by one PSETEX. The most common request, one enforced check
-- of cost 1 of an algorithm with a fast mode, skips the loop's setup in that mode (about a fifteenth of Redis's time
-- per call: 0.4 µs where the call takes 6.5).
--
-- States are the fragments' own. Those of the inline algorithms are decimal integers, so Redis stores them with its
-- integer encoding (no string allocation); every number is below 2^53 < 10^16, so it has at most 16 digits, and a
-- state longer than that starts with a digit naming its algorithm, so a key holding another algorithm's state (a rule
-- whose algorithm changed) reads as a fresh key, as in MemoryStore.
--
-- ARGV[1] = the mode, then the time: now in epoch microseconds, nothing to read Redis TIME ('e', 'e1700000000000000')
--   modes: 'e' evaluate, every check inline; 'E' evaluate, some check needs library(); 'r' release; an algorithm's
--   code: its fast mode, for one enforced check of cost 1 (GCRA's: 'g'), then only its policy's numbers, each an
--   argument ('g', '1000', '1000'); in a Redis function, the code and the numbers in one argument, then the time
--   ('g1000:1000', '1700000000000000'; see below); the algorithm's step, the same text as in the loop, in a shorter
--   frame (the fast template below); its reply as evaluate's
-- evaluate: in mode 'E' ARGV[2] = request id (unique; used by the sliding log only), then per check (KEYS[i]):
--   code and cost in one field (the algorithm's letter, upper case for a shadow check, then the cost unless it is
--   1: 'g', 'G', 'g0', 't5'), then the arguments its fragment reads (its header lists them)
--   returns 4 integers per check: 0 when denied, else 1 + the delay; remaining, reset-after, retry-after (-1: never)
--   (the limit is the policy's, the client knows it); one check admitted at once (no delay, so retry-after 0) is
--   one integer instead, not in a table: reset-after x (limit + 1) + remaining, if below 2^53 (so exact in a double).
--   A table of four integers costs about 0.4 µs of Redis's time, a tenth of the whole call; for several checks the
--   packing costs what it saves
-- release: per key KEYS[i], ARGV[1 + i] = lease id; returns the number of leases released

local A = ARGV
local mode = A[1]
local now
-- TTLs run on Redis's clock; with the application's time they get a minute of slack for the skew between the two
local slack = 0
-- the request's id (mode 'E'), which names the sliding log's members: read by the library, set per request
local rid = nil
-- a fast mode (below): fast, its algorithm's code ('g'), then its policy's numbers. What differs between the script
-- and the Redis function (RedisScript) is here: the assembly keeps the script's lines in the script and the
-- function's in the function.
--@ script
-- A script gets a fast mode's arguments as the other modes': the mode (its code, then the time, if the application's
-- is passed), then each number, which the step reads as tonumber(A[k]). (A script keeps nothing from call to call,
-- and parsing one argument that held them all would cost it more than the arguments it saves.)
local floor, ceil, byte, sub, format = math.floor, math.ceil, string.byte, string.sub, string.format
if #mode == 1 then
  redis.replicate_commands()
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(sub(mode, 2))
  slack = 60000
  mode = sub(mode, 1, 1)
end
local fast = mode
-- a script keeps no policy from call to call: the batch mode 'B' parses each of its policies once per call
local policies, remember = nil, nil
--@ function
-- A function gets a fast mode's code and numbers in one argument ('g1000:1000', each number after a ':'), then the
-- time, if the application's is passed: every argument costs Redis about 1,500 instructions, a thirtieth of such a
-- call. It parses the argument once, into P (the code, then the numbers, which the step reads as P[k]), and its
-- library keeps P for the calls with the same argument (policies, remember: see RedisScript), as it keeps the
-- library functions in floor, ceil, byte, sub and format.
local P = policies[mode]
local fast = nil
if P then fast = P[1] else
  fast = sub(mode, 1, 1)
  if ${FAST} then
    P = {fast}
    local i, n = 2, #mode
    while i <= n do
      local j = string.find(mode, ':', i, true) or n + 1
      local x = tonumber(sub(mode, i, j - 1))
      if x == nil then return redis.error_reply('not a fast mode: ' .. mode) end
      P[#P + 1] = x
      i = j + 1
    end
    remember(mode, P)
  end
end
local time = nil
if P then time = A[2] elseif #mode > 1 then time, mode = sub(mode, 2), sub(mode, 1, 1) end
if time then
  now = tonumber(time)
  slack = 60000
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
--@ shared

-- an algorithm's fast mode (its Definition says fast(); GCRA's): a request of one enforced check of cost 1 and nothing
-- else, decided by the algorithm's own step, without the loop's tables, MGET, library or chain of codes. The lines
-- from the marker 'fast' to 'fast end' are a template, which the assembly repeats for each such algorithm, CODE its
-- code and its step in place of the marker 'fast step': the same text as in the loop below, but for its reads
-- tonumber(A[a + k]), folded into constant indexes (tonumber(A[k + 1]); in a function P[k + 1], parsed above).
-- Around it, the locals the loop gives a step, initialised as there (a = 1), then the loop's epilogue for one
-- enforced check, written out for this case: the state written only when admitted, with the same TTL, and the same
-- reply, packed as below (the client decodes both modes alike). A denial's retry-after is at least 1, as there: a
-- state another program wrote may be fractional ('1000.5'), and Redis would truncate a retry-after of 0.5 to 0. The
-- step's generality (the locals it may use, its branches for cost 0 and a cost above the capacity, the epilogue's
-- tests) costs 2 to 4% of the call (0.1 to 0.25 µs) over the hand-written twin of GCRA's step that this replaced.
--@ fast
if fast == ${CODE} then
  local a, cost = 1, 1
  local v, num = redis.pcall('GET', KEYS[1]), nil
  if v and v.err then v = false end
  local ok, rem, reset, retry, delay = 0, 0, 0, -1, 0
  local lim = 0
  local value, ttl = nil, 0
--@ fast step
  if ok == 0 then
    if retry < 1 and retry ~= -1 then retry = 1 end
    return {0, rem, reset, retry}
  end
  if value then
    if ttl < 1 then ttl = 1 end
    -- integers as format('%d') makes them: Redis would spend about 2,000 instructions on each with '%.17g'
    if value % 1 == 0 then value = format('%d', value) end
    redis.call('PSETEX', KEYS[1], format('%d', ceil(ttl / 1000) + slack), value)
  end
  if delay == 0 and rem >= 0 and rem <= lim and reset >= 0 then
    local m = lim + 1
    if reset <= 9007199254740992 / m - 2 then return (reset - reset % 1) * m + rem end
  end
  return {1 + delay, rem, reset, retry}
end
--@ fast end

-- Mode 'B', a fast batch (Coalescer): requests whose checks are each enforced, of cost 1 and of an algorithm with a
-- fast mode, decided one after the other, each all-or-nothing as in the loop below (a request is admitted only if
-- every check admits it; a denied one writes nothing). Each distinct key is read once (one MGET for all, GET for one
-- key) and written once (PSETEX, after the last request, with the TTL of its last write): the requests in between
-- read and write its state in nums (an integer state, as a number: the step reads it as num) or strs (any other, as
-- the string Redis would hold), so a step reads what it would have read after the write, without formatting and
-- parsing it per decision. A number is formatted once per key, as format('%d') makes it: Redis would convert it with
-- '%.17g' (about 2,000 instructions). ARGV[1] = 'B' (then the first request's time when the application's is passed),
-- then tokens, each read in order: '@' and a time, the time of the requests that follow; a fast mode's argument
-- ('g1000:1000'), the policy of the requests of one check that follow; '=' and a number M, then M such arguments, the
-- policies of the checks of the requests of M checks that follow; a number N, the next N requests, each of the next
-- M keys (M is 1 after a fast mode's argument); '*' and a number N, the next M keys' N requests. The reply: per check
-- of each request, an admitted-at-once outcome packed into one integer as above (>= 0), or -1 then its 4 integers.
if mode == 'B' then
  local out, o, at, na, k = {}, 0, 2, #A, 0
  local nums, strs, ttls, written, nw = {}, {}, {}, {}, 0
  local vals = nil
  if #KEYS == 1 then
    vals = {redis.pcall('GET', KEYS[1])}
    if vals[1] and vals[1].err then vals[1] = false end
  elseif KEYS.across then
    -- keys of several slots of one Cluster node (RedisScript's ACROSS_CODE): one GET each, all before any write, so
    -- that a key this node does not serve (a slot moved or moving) fails the call with nothing written
    vals = {}
    for i = 1, #KEYS do
      local v = redis.pcall('GET', KEYS[i])
      if type(v) == 'table' then
        if sub(v.err, 1, 9) ~= 'WRONGTYPE' then return redis.error_reply(v.err) end
        v = false
      end
      vals[i] = v
    end
  else
    vals = redis.call('MGET', unpack(KEYS))
  end
  -- a fast mode's argument, parsed (a function keeps it from call to call: policies, remember), or nil
  local function policy(s)
    local P = policies and policies[s]
    if P then return P end
    P = {sub(s, 1, 1)}
    local fast, i, n = P[1], 2, #s
    if not (${FAST}) then return nil end
    while i <= n do
      local j = string.find(s, ':', i, true) or n + 1
      local x = tonumber(sub(s, i, j - 1))
      if x == nil then return nil end
      P[#P + 1] = x
      i = j + 1
    end
    if remember then remember(s, P) end
    return P
  end
  -- M policies (shape) of the requests of M checks; per check, the state it writes and its TTL (vs, ts)
  local P, m, shape, vs, ts = nil, 1, nil, {}, {}
  while at <= na do
    local s = A[at]
    at = at + 1
    local c = byte(s)
    local keys, each = 0, 1
    if c == ${'@'} then now = tonumber(sub(s, 2))
    elseif c == ${'*'} then keys, each = 1, tonumber(sub(s, 2))
    elseif c <= ${'9'} then keys = tonumber(s)
    elseif c == ${'='} then
      m, shape = tonumber(sub(s, 2)), {}
      for i = 1, m do
        shape[i] = policy(A[at])
        if not shape[i] then return redis.error_reply('not a fast mode: ' .. tostring(A[at])) end
        at = at + 1
      end
    else
      P, m = policy(s), 1
      if not P then return redis.error_reply('not a fast mode: ' .. s) end
      fast = P[1]
    end
    if m == 1 then
      for _ = 1, keys do
        k = k + 1
        local key = KEYS[k]
        local num, v = nums[key], false
        if num == nil then
          v = strs[key]
          if v == nil then v = vals[k] end
        end
        for _ = 1, each do
          local ok, rem, reset, retry, delay = 0, 0, 0, -1, 0
          local lim = 0
          local value, ttl = nil, 0
--@ batch
          if fast == ${CODE} then    -- the step of this fast mode in a batch
  local a, cost = 1, 1
--@ fast step
          end
--@ batch end
          if ok == 0 then
            if retry < 1 and retry ~= -1 then retry = 1 end
            out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = -1, 0, rem, reset, retry
            o = o + 5
          else
            if value then
              if value % 1 == 0 then num, v = value, false else num, v = nil, format('%.17g', value) end
              if not ttls[key] then nw = nw + 1 written[nw] = key end
              ttls[key] = ttl
            end
            local m1 = lim + 1
            if delay == 0 and rem >= 0 and rem <= lim and reset >= 0 and reset <= 9007199254740992 / m1 - 2 then
              out[o + 1] = (reset - reset % 1) * m1 + rem
              o = o + 1
            else
              out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = -1, 1 + delay, rem, reset, retry
              o = o + 5
            end
          end
        end
        nums[key] = num
        if num == nil then strs[key] = v end
      end
    else
      for _ = 1, keys do
        local k0 = k
        k = k + m
        for _ = 1, each do
          -- each check's outcome as evaluated (the reply does not depend on the others'), its write staged in
          -- vs, ts until every check has admitted
          local denied = false
          for i = 1, m do
            local key = KEYS[k0 + i]
            local num, v = nums[key], false
            if num == nil then
              v = strs[key]
              if v == nil then v = vals[k0 + i] end
            end
            local P = shape[i]
            local fast = P[1]
            local ok, rem, reset, retry, delay = 0, 0, 0, -1, 0
            local lim = 0
            local value, ttl = nil, 0
--@ batch
            if fast == ${CODE} then    -- the step of this fast mode in a batch of requests of several checks
  local a, cost = 1, 1
--@ fast step
            end
--@ batch end
            vs[i], ts[i] = value or false, ttl
            local m1 = lim + 1
            if ok == 0 then
              denied = true
              if retry < 1 and retry ~= -1 then retry = 1 end
              out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = -1, 0, rem, reset, retry
              o = o + 5
            elseif delay == 0 and rem >= 0 and rem <= lim and reset >= 0
                and reset <= 9007199254740992 / m1 - 2 then
              out[o + 1] = (reset - reset % 1) * m1 + rem
              o = o + 1
            else
              out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5] = -1, 1 + delay, rem, reset, retry
              o = o + 5
            end
          end
          if not denied then
            for i = 1, m do
              local value = vs[i]
              if value then
                local key = KEYS[k0 + i]
                if value % 1 == 0 then nums[key] = value else nums[key], strs[key] = nil, format('%.17g', value) end
                if not ttls[key] then nw = nw + 1 written[nw] = key end
                ttls[key] = ts[i]
              end
            end
          end
        end
      end
    end
  end
  for i = 1, nw do
    local key = written[i]
    local ttl, x = ttls[key], nums[key]
    if ttl < 1 then ttl = 1 end
    if x then x = format('%d', x) else x = strs[key] end
    redis.call('PSETEX', key, format('%d', ceil(ttl / 1000) + slack), x)
  end
  return out
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

  local lib = {ttl_ms = ttl_ms}

--@ library

  return lib
end
if mode == 'r' then return library().release() end
end

-- One request, or in mode 'b' (batch: requests that waited while calls were in flight, see Coalescer) each request
-- in turn: its keys are KEYS[k0 + 1 .. k0 + n], its arguments start at A[a]. A request reads its keys after the
-- requests before it wrote theirs, so a batch decides as those requests would one after the other, each one
-- all-or-nothing. Batch: ARGV[1] = 'b' (then the time, as for any mode), then per request the number of its checks
-- and the arguments of its call alone (its mode 'e' or 'E' with its own time, and so on); the reply is 4 integers
-- per check, request after request, never packed.
local k0, n, a, batch = 0, #KEYS, 2, nil
-- library(), made by the first request that needs it; its functions read now and rid as each request sets them
local lib = nil
if mode == 'b' then batch = {} else
  if mode == 'E' then rid, a = A[2], 3 end
end
repeat
  if batch then
    n = tonumber(A[a])
    local m = A[a + 1]
    if #m > 1 then now = tonumber(sub(m, 2)) end
    a = a + 2
    if byte(m) == ${'E'} then rid, a = A[a], a + 1 end
  end
  -- a key of another type (a sorted set) reads as nil in MGET, where GET would fail: pcall answers a table with err
  -- (GET's other answers are a string, whose .err is nil, and false)
  local v1, vals = false, nil
  if n == 1 then
    v1 = redis.pcall('GET', KEYS[k0 + 1])
    if v1 and v1.err then v1 = false end
  else
    vals = redis.call('MGET', unpack(KEYS, k0 + 1, k0 + n))
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
  -- per check, the writes of a library algorithm that keeps more than one value:
  -- {write(key, state, p, i), state if admitted, state if denied, p}
  local special = nil
  local denied = false
  for i = 1, n do
    local key = KEYS[k0 + i]
    local head = A[a]
    local code = byte(head)
    local shadow = code < ${'a'}
    if shadow then code = code + (${'a'} - ${'A'}) end
    local cost = 1
    if #head > 1 then cost = tonumber(sub(head, 2)) end
    local v, num = v1, nil
    if vals then v = vals[i] end
    local r = (i - 1) * 4
    -- a step reads its arguments from A[a + 1], leaves a at the next check's, and sets the outcome: allowed (1/0),
    -- remaining, reset-after, retry-after (-1: never; else at least 1), delay; lim, the limit the client knows
    -- (capacity or limit, the radix of the packed reply); and value, ttl: the state to write when admitted and its
    -- time to live in µs (a library step: in ms, from ttl_ms)
    local ok, rem, reset, retry, delay = 0, 0, 0, -1, 0
    local lim = 0
    local value, ttl = nil, 0
--@ step inline
      if not library then return redis.error_reply("algorithm code '" .. A[a] .. "' needs mode 'E'") end
      lib = lib or library()
      local o
--@ step library
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
      redis.call('PSETEX', KEYS[k0 + i], ttl, value)
    elseif special and special[i] then
      local s = special[i]
      local w = s[3]
      if admitted then w = s[2] end
      if w then s[1](KEYS[k0 + i], w, s[4], i) end
    end
  end
  if batch then
    -- the request's outcomes after those of the requests before it; the next request's keys follow its keys
    local at = #batch
    if n == 1 then batch[at + 1], batch[at + 2], batch[at + 3], batch[at + 4] = o1, o2, o3, o4
    else for j = 1, 4 * n do batch[at + j] = out[j] end end
    k0 = k0 + n
  else
    -- one check admitted at once: packed when reset x m + rem < 2^53 (2^53 / m is within half a unit, so 2 below it
    -- is safe), reset truncated as Redis truncates it in a table (a fractional state another program wrote makes a
    -- fractional reset, whose fraction x m would otherwise pass into the remaining)
    if n == 1 then
      if o1 == 1 and o2 >= 0 and o2 <= lim1 and o3 >= 0 then
        local m = lim1 + 1
        if o3 <= 9007199254740992 / m - 2 then return (o3 - o3 % 1) * m + o2 end
      end
      return {o1, o2, o3, o4}
    end
    for i = 4 * n + 1, #out do out[i] = nil end     -- the unused tail of a table sized for 4 checks
    return out
  end
until a > #A
return batch
