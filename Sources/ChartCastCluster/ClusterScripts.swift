/// The Lua scripts `ClusterLink` runs in Redis: each reads and changes several keys in one
/// step, so that no other instance's command falls in between.
enum ClusterScripts {
    /// Compares stream ids (`ms-seq`), for the scripts that need to.
    private static let before = """
    local function before(a, b)
      local am, as = string.match(a, '^(%d+)%-(%d+)$')
      local bm, bs = string.match(b, '^(%d+)%-(%d+)$')
      am, as, bm, bs = tonumber(am), tonumber(as), tonumber(bm), tonumber(bs)
      if am ~= bm then return am < bm end
      return as < bs
    end
    """

    /// Claims the dashboard for a snapshot: when ARGV[2] is empty only if Redis holds no
    /// dashboard (its first start, or Redis came back empty); else only while the epoch is still
    /// ARGV[2] (a running instance taking the dashboard back from one that just started). Sets
    /// the fingerprint and the new epoch, adds the epoch's entry to the stream and stores the
    /// snapshot as of it; registers the instances holding viewers of it (a heartbeat of one
    /// TTL: the dead ones are found gone after it) and raises the instance counter above them.
    /// Returns the epoch entry's id, nil when not claimed.
    /// KEYS: dashboard, epoch, snapshot, snapshotAt, log, instances, members.
    /// ARGV: fingerprint, expected epoch, new epoch, snapshot, alive prefix, TTL ms, instance numbers….
    static let claim = """
    if ARGV[2] == '' then
      if redis.call('EXISTS', KEYS[1]) == 1 then return false end
    elseif redis.call('GET', KEYS[2]) ~= ARGV[2] then
      return false
    end
    redis.call('SET', KEYS[1], ARGV[1])
    redis.call('SET', KEYS[2], ARGV[3])
    local at = redis.call('XADD', KEYS[5], '*', 'm', ARGV[3])
    redis.call('SET', KEYS[3], ARGV[4])
    redis.call('SET', KEYS[4], at)
    local top = tonumber(redis.call('GET', KEYS[6]) or '0')
    for i = 7, #ARGV do
      local n = tonumber(ARGV[i])
      if n > top then top = n end
      redis.call('SADD', KEYS[7], ARGV[i])
      redis.call('SET', ARGV[5] .. ARGV[i], '1', 'NX', 'PX', ARGV[6])
    end
    redis.call('SET', KEYS[6], tostring(top))
    return at
    """

    /// Registers instance ARGV[1] (member, heartbeat, applied = the snapshot's id, so that the
    /// stream is not trimmed past what it is about to read) and returns the snapshot, its id
    /// and the epoch: `{snapshot|nil, id, epoch|nil}`.
    /// KEYS: snapshot, snapshotAt, epoch, members, applied. ARGV: instance, its alive key, TTL ms.
    static let load = """
    redis.call('SADD', KEYS[4], ARGV[1])
    redis.call('SET', ARGV[2], '1', 'PX', ARGV[3])
    local at = redis.call('GET', KEYS[2]) or '0-0'
    redis.call('HSET', KEYS[5], ARGV[1], at)
    return {redis.call('GET', KEYS[1]) or false, at, redis.call('GET', KEYS[3]) or false}
    """

    /// Where Redis stands for an instance that reconnected: `{dashboard held 0|1, epoch|nil,
    /// snapshot id, whether entry ARGV[1] is still in the stream 0|1}`.
    /// KEYS: dashboard, epoch, snapshotAt, log. ARGV: the last id the instance read.
    static let check = """
    local kept = 0
    if ARGV[1] ~= '0-0' and #redis.call('XRANGE', KEYS[4], ARGV[1], ARGV[1]) > 0 then kept = 1 end
    return {redis.call('EXISTS', KEYS[1]), redis.call('GET', KEYS[2]) or false, redis.call('GET', KEYS[3]) or '0-0', kept}
    """

    /// Stores a snapshot as of entry ARGV[2] when the epoch is still ARGV[1] and it is newer
    /// than the one stored. Returns 1 when stored, else 0.
    /// KEYS: epoch, snapshot, snapshotAt. ARGV: epoch, id, snapshot.
    static let store = before + """

    if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
    local at = redis.call('GET', KEYS[3])
    if at and not before(at, ARGV[2]) then return 0 end
    redis.call('SET', KEYS[2], ARGV[3])
    redis.call('SET', KEYS[3], ARGV[2])
    return 1
    """

    /// Trims the stream before the oldest of the snapshot's entry and every live instance's last
    /// applied one (an instance with none reported holds everything). Returns the entries trimmed.
    /// KEYS: snapshotAt, members, applied, log. ARGV: alive prefix.
    static let trim = before + """

    local minid = redis.call('GET', KEYS[1])
    if not minid then return 0 end
    for _, member in ipairs(redis.call('SMEMBERS', KEYS[2])) do
      if redis.call('EXISTS', ARGV[1] .. member) == 1 then
        local applied = redis.call('HGET', KEYS[3], member) or '0-0'
        if before(applied, minid) then minid = applied end
      end
    end
    return redis.call('XTRIM', KEYS[4], 'MINID', minid)
    """

    /// Removes and returns the members of KEYS[1] whose key ARGV[1]..member does not exist
    /// (and their applied ids from KEYS[2]).
    static let reap = """
    local gone = {}
    for _, member in ipairs(redis.call('SMEMBERS', KEYS[1])) do
      if redis.call('EXISTS', ARGV[1] .. member) == 0 then
        redis.call('SREM', KEYS[1], member)
        redis.call('HDEL', KEYS[2], member)
        table.insert(gone, tonumber(member))
      end
    end
    return gone
    """

    /// Claims the idempotency key KEYS[1] for ARGV[1] for ARGV[2] ms: `{1}` claimed, `{0, value}`
    /// held (in flight or answered), `{2}` gone between the two looks (try again).
    static let claimKey = """
    if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1} end
    local value = redis.call('GET', KEYS[1])
    if not value then return {2} end
    return {0, value}
    """

    /// Releases the idempotency key KEYS[1] while a claim of the instance prefixed ARGV[1]
    /// holds it (its request was answered 5xx).
    static let releaseKey = """
    local value = redis.call('GET', KEYS[1])
    if value and string.sub(value, 1, #ARGV[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
    """

    /// Takes the lease KEYS[1] for ARGV[1] when free, renews it when held (ARGV[2] ms); 1 when
    /// held afterwards.
    static let lease = """
    local holder = redis.call('GET', KEYS[1])
    if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
    if holder then return 0 end
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
    """

    /// Gives the lease KEYS[1] up when ARGV[1] holds it.
    static let release = """
    if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
    return 0
    """
}
