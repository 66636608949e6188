/// The shared pacer's Lua scripts, on one host's hash (one key, one slot). Times are the
/// server's (`TIME`, in microseconds), so the clocks of the workers' machines never matter.
///
/// The hash: `rate` (requests a second; absent while the host is unpaced), `next` (when the next
/// request may start), `pause` (no start before it: a long `Retry-After`), `first` (the first
/// start), `cut` (the last rate cut), `refused_at` (the delivered rate at the last refusal),
/// `newest` and `b0`…`b9` (successes in the last second, in 100 ms buckets).
enum PolitenessScripts {
    private static let clock = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
        """

    /// KEYS: host hash, host leases. ARGV: concurrency limit (0: none), lease token, lease
    /// time to live µs. Takes a lease (a request in flight) and reserves the next start: returns
    /// `{wait µs, start µs}`, or `{-1, 0}` when the host has `limit` requests in flight.
    static let acquire = clock + """

        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now))
        local limit = tonumber(ARGV[1])
        if limit > 0 and redis.call('ZCARD', KEYS[2]) >= limit then return {-1, 0} end
        redis.call('ZADD', KEYS[2], string.format('%.0f', now + tonumber(ARGV[3])), ARGV[2])
        redis.call('PEXPIRE', KEYS[2], 600000)
        local h = redis.call('HMGET', KEYS[1], 'rate', 'next', 'pause', 'first')
        local start = now
        local pause = tonumber(h[3])
        if pause and pause > start then start = pause end
        local rate = tonumber(h[1])
        if rate then
          local nxt = tonumber(h[2])
          if nxt and nxt > start then start = nxt end
          redis.call('HSET', KEYS[1], 'next', string.format('%.0f', start + 1000000 / rate))
        end
        if not h[4] then redis.call('HSET', KEYS[1], 'first', string.format('%.0f', now)) end
        redis.call('PEXPIRE', KEYS[1], 600000)
        return {math.floor(start - now), math.floor(start)}
        """

    /// KEYS: host hash, host leases. ARGV: outcome (`ok`, `refused`, `other`), start µs, pause
    /// ms, fast increase, slow increase, back-off, minimum rate, unpaced above, settle share, probe
    /// increase, lease token. Returns the rate ×1000 (0: unpaced).
    ///
    /// A refusal measures the rate the host served: over the last second (counted as at least
    /// 250 ms when the host is newer: a limiter's initial burst allowance would inflate a shorter
    /// measure, and the fast increase soon corrects a low one), or since the last cut when that is
    /// lower and 100 ms old.
    static let report = clock + """

        redis.call('ZREM', KEYS[2], ARGV[11])

        local outcome, started, pausems = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
        local fast, slow, backoff, minrate, unpaced = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
        local settle, probe = tonumber(ARGV[9]), tonumber(ARGV[10])
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
          redis.call('HINCRBY', KEYS[1], 'since_cut', 1)
          if rate then
            local refused = tonumber(redis.call('HGET', KEYS[1], 'refused_at')) or math.huge
            if rate < refused * 0.9 then rate = rate + fast
            elseif rate < refused * settle then rate = rate + slow
            else rate = rate + probe end
            if rate > unpaced then
              redis.call('HDEL', KEYS[1], 'rate', 'cut', 'refused_at', 'next')
              rate = nil
            else
              redis.call('HSET', KEYS[1], 'rate', tostring(rate))
            end
          end
        elseif outcome == 'refused' then
          local cut = tonumber(redis.call('HGET', KEYS[1], 'cut'))
          if not cut or started >= cut then
            local first = tonumber(redis.call('HGET', KEYS[1], 'first')) or now
            local window = math.min(1000000, math.max(250000, now - first))
            local sum = 0
            for i = 0, 9 do sum = sum + (tonumber(redis.call('HGET', KEYS[1], 'b' .. i)) or 0) end
            local measured = sum * 1000000 / window
            if cut and now - cut >= 100000 then
              local since = (tonumber(redis.call('HGET', KEYS[1], 'since_cut')) or 0) * 1000000 / (now - cut)
              if since < measured then measured = since end
            end
            redis.call('HSET', KEYS[1], 'since_cut', 0)
            if rate then redis.call('HSET', KEYS[1], 'refused_at', tostring(measured)) end
            local target = math.max(minrate, measured * backoff)
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
