/// The shared pacer's Lua scripts, on one host's hash (one key, one slot). Times are the
/// server's (`TIME`, in microseconds), so the clocks of the workers' machines never matter.
///
/// The hash: `rate` (requests a second; absent while the host is unpaced), `next` (when the next
/// request may start), `pause` (no start before it: a long `Retry-After`), `first` (the first
/// start), `cut` (the last rate cut), `ceiling` (the rate last refused, less a margin), `hold`
/// (no probe past the ceiling before it), `newest` and `b0`…`b9` (successes in the last second,
/// in 100 ms buckets).
enum PolitenessScripts {
    private static let clock = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
        """

    /// Reserves the next start (`start`): not before a pause, one per `1 / rate` while paced.
    /// Needs `now` and `h`, the hash's `rate`, `next` and `pause` first.
    private static let reserve = """

        local start = now
        local pause = tonumber(h[3])
        if pause and pause > start then start = pause end
        local rate = tonumber(h[1])
        if rate then
          local nxt = tonumber(h[2])
          if nxt and nxt > start then start = nxt end
          redis.call('HSET', KEYS[1], 'next', string.format('%.0f', start + 1000000 / rate))
        end
        """

    /// KEYS: host hash, host leases. ARGV: concurrency limit (0: none), lease token, lease
    /// time to live µs, warm-up step µs. Takes a lease (a request in flight) and reserves the next
    /// start: returns `{wait µs, start µs}`, or `{-1, 0}` when the host has `limit` requests in
    /// flight. Until the host's first refusal the limit starts at 1 and doubles each step.
    static let acquire = clock + """

        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
        local limit = tonumber(ARGV[1])
        local h = redis.call('HMGET', KEYS[1], 'rate', 'next', 'pause', 'first', 'cut')
        if not h[5] then
          local grown = 2 ^ math.min(20, math.floor((now - (tonumber(h[4]) or now)) / tonumber(ARGV[4])))
          if limit == 0 or grown < limit then limit = grown end
        end
        if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then return {-1, 0} end
        redis.call('ZADD', KEYS[2], string.format('%.0f', now + tonumber(ARGV[3])), ARGV[2])
        redis.call('PEXPIRE', KEYS[2], 600000)
        """ + reserve + """

        if not h[4] then redis.call('HSET', KEYS[1], 'first', string.format('%.0f', now)) end
        redis.call('PEXPIRE', KEYS[1], 600000)
        return {math.floor(start - now), math.floor(start)}
        """

    /// KEYS: host hash. ARGV: when the start was reserved (µs). A start reserved before the last
    /// rate cut was spaced at the old rate: it is given up and a new one reserved at the current
    /// rate (`{wait µs, start µs}`); `{0, 0}` keeps it.
    static let confirm = clock + """

        local h = redis.call('HMGET', KEYS[1], 'rate', 'next', 'pause', 'cut')
        local cut = tonumber(h[4])
        if not cut or cut <= tonumber(ARGV[1]) then return {0, 0} end
        """ + reserve + """

        return {math.floor(start - now), math.floor(start)}
        """

    /// KEYS: host hash, host leases. ARGV: outcome (`ok`, `refused`, `other`), start µs, pause
    /// ms, fast increase, slow increase, back-off, minimum rate, unpaced above, probe increase,
    /// lease token, ceiling margin, hold µs. Returns the rate ×1000 (0: unpaced).
    ///
    /// A refusal measures the rate the host served over the last second (the current 100 ms bucket
    /// and the nine before it; counted as at least 250 ms when the host is newer: a limiter's
    /// initial burst allowance inflates a shorter measure, and a ceiling set too high by it is
    /// corrected at the next refusal).
    static let report = clock + """

        redis.call('ZREM', KEYS[2], ARGV[10])

        local outcome, started, pausems = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
        local fast, slow, backoff, minrate, unpaced = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
        local probe, margin, hold = tonumber(ARGV[9]), tonumber(ARGV[11]), tonumber(ARGV[12])
        local idx = math.floor(now / 100000)
        local newest = tonumber(redis.call('HGET', KEYS[1], 'newest'))
        if not newest or idx - newest >= 10 then
          for i = 0, 9 do redis.call('HSET', KEYS[1], 'b' .. i, 0) end
        elseif idx > newest then
          for s = newest + 1, idx do redis.call('HSET', KEYS[1], 'b' .. (s % 10), 0) end
        end
        if not newest or idx > newest then redis.call('HSET', KEYS[1], 'newest', idx) end
        local rate = tonumber(redis.call('HGET', KEYS[1], 'rate'))
        if outcome == 'ok' then
          redis.call('HINCRBY', KEYS[1], 'b' .. (idx % 10), 1)
          if rate then
            local c = redis.call('HMGET', KEYS[1], 'ceiling', 'hold')
            local ceiling = tonumber(c[1]) or math.huge
            if rate < ceiling * 0.9 then rate = rate + fast
            elseif rate < ceiling then rate = math.min(ceiling, rate + slow)
            elseif now >= (tonumber(c[2]) or 0) then rate = rate + probe end
            if rate > unpaced then
              redis.call('HDEL', KEYS[1], 'rate', 'cut', 'ceiling', 'hold', 'next')
              rate = nil
            else
              redis.call('HSET', KEYS[1], 'rate', tostring(rate))
            end
          end
        elseif outcome == 'refused' then
          local cut = tonumber(redis.call('HGET', KEYS[1], 'cut'))
          if not cut or started >= cut then
            local first = tonumber(redis.call('HGET', KEYS[1], 'first')) or now
            local window = math.max(250000, math.min(900000 + now - idx * 100000, now - first))
            local sum = 0
            for i = 0, 9 do sum = sum + (tonumber(redis.call('HGET', KEYS[1], 'b' .. i)) or 0) end
            local measured = sum * 1000000 / window
            -- The rate served when refused less a margin is the ceiling, held without probing
            -- until `hold` has passed. (Not the rate sent: a refusal while the limiter drains
            -- after a cut would lower the ceiling at each one.)
            local base = math.max(minrate, measured * (1 - margin))
            redis.call('HSET', KEYS[1], 'ceiling', tostring(base), 'hold', string.format('%.0f', now + hold))
            local target = math.max(minrate, base * backoff)
            if not rate or target < rate then rate = target end
            redis.call('HSET', KEYS[1], 'rate', tostring(rate), 'cut', string.format('%.0f', now),
                       'next', string.format('%.0f', now + 1000000 / rate))
          end
        end
        if pausems > 0 then
          local pause = tonumber(redis.call('HGET', KEYS[1], 'pause')) or 0
          local wanted = now + pausems * 1000
          if wanted > pause then redis.call('HSET', KEYS[1], 'pause', string.format('%.0f', wanted)) end
        end
        redis.call('PEXPIRE', KEYS[1], 600000)
        if rate then return math.floor(rate * 1000) end
        return 0
        """
}
