-- settings.lua: the settings a fleet shares (RedisSettings beside it; LocalSettings in core is the reference: change
-- them together). One mode per operation; each call is atomic, and a write records its audit entry in the same step.
-- Uses no command newer than Redis 6.2.
--
-- KEYS[1] the version counter (a string: INCR; created as bump says), KEYS[2] the rules document (a hash: version,
--   text, who, at; no text when the document was removed), KEYS[3] the overrides (a hash: rule .. '\0' .. key id ->
--   an override as RedisSettings.encode writes it: until '|' at '|' policy '\0' who), KEYS[4] the audit trail (a
--   stream of entries who, at, action, rule, key, value, previous)
-- ARGV[1] the mode, ARGV[2] the audit trail's length (XADD MAXLEN ~), then the mode's:
--   'read'                                     -> {version, the document's fields and values, the overrides'}
--   'document' expected, present, text, who, at -> {1, the new document version} or {0, the document version there}:
--      expected -1 replaces whatever is there; present '0': the document is removed (text is then ignored)
--   'put' field, value, shown, who, at, rule, key, max -> {1, the override replaced or nil} or {0} (max hold already)
--   'remove' field, who, at, rule, key          -> the override removed, or nil (nothing written)
--   'record' at, who, action, rule, key, value, previous -> the entry's id

redis.replicate_commands()  -- Redis 6.2: XADD's id makes the script's writes non-deterministic
local A = ARGV
local mode = A[1]

local function audit(at, who, action, rule, key, value, previous)
  return redis.call('XADD', KEYS[4], 'MAXLEN', '~', A[2], '*', 'who', who, 'at', at, 'action', action, 'rule', rule,
    'key', key, 'value', value, 'previous', previous)
end

-- one more version: every write's. A counter created (the first write, or the first after Redis lost its data) starts
-- at Redis's time in microseconds, so that it never gives again a version a node may still hold from a counter lost
-- (that would take more than one change a microsecond); LocalSettings, which loses nothing, starts at 0.
local function bump()
  if redis.call('EXISTS', KEYS[1]) == 0 then
    local now = redis.call('TIME')
    redis.call('SET', KEYS[1], now[1] .. string.format('%06d', tonumber(now[2])))
  end
  redis.call('INCR', KEYS[1])
end

-- an override as the audit trail shows it (LocalSettings.describe): its policy, and its end when it has one
local function shown(value)
  local untilMillis, rest = string.match(value, '^(%d+)|%d+|(.*)$')
  local policy = string.sub(rest, 1, (string.find(rest, '\0', 1, true) or (#rest + 1)) - 1)
  if untilMillis == '0' then return policy end
  return policy .. ' until ' .. untilMillis
end

if mode == 'read' then
  -- the counter is below 2^53 (microseconds since 1970, and changes) until the year 2255: exact as a Lua number
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('HGETALL', KEYS[2]),
    redis.call('HGETALL', KEYS[3])}
end

if mode == 'document' then
  local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
  local expected = tonumber(A[3])
  if expected ~= -1 and expected ~= current then return {0, current} end
  local previous = redis.call('HGET', KEYS[2], 'text') or ''
  local v = current + 1
  if A[4] == '1' then
    redis.call('HSET', KEYS[2], 'version', v, 'text', A[5], 'who', A[6], 'at', A[7])
  else
    redis.call('HDEL', KEYS[2], 'text')
    redis.call('HSET', KEYS[2], 'version', v, 'who', A[6], 'at', A[7])
  end
  bump()
  audit(A[7], A[6], 'RULES_REPLACED', '', '', A[4] == '1' and ('version ' .. v) or '', previous)
  return {1, v}
end

if mode == 'put' then
  -- overrides ended at the new one's time are dropped first, kept dropped even when the new one is refused
  local at = tonumber(A[7])
  local all = redis.call('HGETALL', KEYS[3])
  local dropped = false
  for i = 1, #all, 2 do
    local untilMillis = tonumber(string.match(all[i + 1], '^(%d+)|')) or 0
    if untilMillis ~= 0 and untilMillis <= at then
      redis.call('HDEL', KEYS[3], all[i])
      dropped = true
    end
  end
  if dropped then bump() end
  local previous = redis.call('HGET', KEYS[3], A[3])
  if not previous and redis.call('HLEN', KEYS[3]) >= tonumber(A[10]) then return {0} end
  redis.call('HSET', KEYS[3], A[3], A[4])
  bump()
  audit(A[7], A[6], 'OVERRIDE_SET', A[8], A[9], A[5], previous and shown(previous) or '')
  return {1, previous}
end

if mode == 'remove' then
  local previous = redis.call('HGET', KEYS[3], A[3])
  if not previous then return false end
  redis.call('HDEL', KEYS[3], A[3])
  bump()
  audit(A[5], A[4], 'OVERRIDE_REMOVED', A[6], A[7], '', shown(previous))
  return previous
end

if mode == 'record' then
  return audit(A[3], A[4], A[5], A[6], A[7], A[8], A[9])
end

return redis.error_reply("settings.lua: unknown mode '" .. tostring(mode) .. "'")
