/// The queue's Lua scripts. Each runs on one partition's keys (one slot), atomically: a stream
/// command and the counters it changes are one step, so neither a killed worker nor a restarted
/// server (AOF replays a script's effects whole) leaves them apart.
enum QueueScripts {
    /// KEYS: stream, stats. ARGV: group, url…. Creates the group (from the start of the stream)
    /// if needed, adds every URL and counts them in `total`.
    static let push = """
        redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '0', 'MKSTREAM')
        for i = 2, #ARGV do redis.call('XADD', KEYS[1], '*', 'url', ARGV[i]) end
        redis.call('HINCRBY', KEYS[2], 'total', #ARGV - 1)
        return #ARGV - 1
        """

    /// KEYS: stream, stats, errors. ARGV: group, id, counter (`loaded` or `already_stored`).
    /// 1: acknowledged now (`done` counted); 0: someone acknowledged it before (a duplicate).
    static let complete = """
        if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
          redis.call('XDEL', KEYS[1], ARGV[2])
          redis.call('HINCRBY', KEYS[2], 'done', 1)
          redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
          redis.call('HDEL', KEYS[3], ARGV[2])
          return 1
        end
        redis.call('HINCRBY', KEYS[2], 'duplicates', 1)
        return 0
        """

    /// KEYS: stream, stats, errors, dead. ARGV: group, id, url, error, deliveries, max deliveries.
    /// At the last delivery the entry moves to the dead stream with its error (an empty error
    /// takes the one recorded before); before it the error is recorded and the entry stays
    /// pending, to be claimed again. 1: dead; 0: recorded; -1: no longer pending (done elsewhere).
    static let fail = """
        local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
        if #pending == 0 then return -1 end
        local err = ARGV[4]
        if err == '' then err = redis.call('HGET', KEYS[3], ARGV[2]) or ('delivered ' .. ARGV[5] .. ' times without an outcome (its workers stopped)') end
        if tonumber(ARGV[5]) >= tonumber(ARGV[6]) then
          redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
          redis.call('XDEL', KEYS[1], ARGV[2])
          redis.call('XADD', KEYS[4], '*', 'url', ARGV[3], 'error', err, 'deliveries', ARGV[5], 'id', ARGV[2])
          redis.call('HINCRBY', KEYS[2], 'dead', 1)
          redis.call('HDEL', KEYS[3], ARGV[2])
          if ARGV[4] ~= '' then redis.call('HINCRBY', KEYS[2], 'failed_deliveries', 1) end
          return 1
        end
        redis.call('HSET', KEYS[3], ARGV[2], err)
        redis.call('HINCRBY', KEYS[2], 'failed_deliveries', 1)
        return 0
        """

    /// KEYS: stream, stats, dead. ARGV: dead entry id, url. Moves a dead entry back to the
    /// stream as a new entry. 1 when moved, 0 when it was gone.
    static let requeue = """
        if redis.call('XDEL', KEYS[3], ARGV[1]) == 0 then return 0 end
        redis.call('XADD', KEYS[1], '*', 'url', ARGV[2])
        redis.call('HINCRBY', KEYS[2], 'dead', -1)
        redis.call('HINCRBY', KEYS[2], 'requeued', 1)
        return 1
        """
}
