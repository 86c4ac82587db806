// SPDX-License-Identifier: MIT
import DSBridgeRedis

/// The Lua scripts that keep a cluster's records (docs/CLUSTER.md). Each runs atomically in
/// Redis, so a check of ownership and the writes it guards cannot be separated. Keys are
/// derived from the session id inside the scripts (standalone Redis; the `{SID}` hash tags
/// keep a session's keys in one slot for a later move to Redis Cluster).
enum ClusterScripts {
    /// One round of the journal: the batches of several sessions (``JournalArguments``).
    /// ARGV: node, ttl, the count of batches, then each batch. Answers one status per batch:
    /// `ok`, `moved` (another node or a newer epoch owns the session: nothing of it is
    /// written) or `gone` (no record, and the batch does not create one). Expiry is set when
    /// a session is created and by the owner's renewal pass (and, for sessions of dead
    /// nodes, by the reaper), not on every write.
    ///
    /// A batch's writes to each key go out as one command (`ZADD` of every message, one
    /// `HDEL` and one `HSET` per hash), their arguments passed straight from `ARGV` with
    /// `unpack` (in slices, under Lua's stack limit): a round costs a few commands per
    /// session, not per call. The writer folds each hash's changes to their final value per
    /// field, so deleting before setting gives the same result as the changes in order.
    static let journal = #"""
        local node, ttl = ARGV[1], tonumber(ARGV[2])
        local out = {}
        local i = 4
        -- Runs `cmd key ARGV[from .. from + n - 1]`, at most 1000 arguments at a time.
        local function many(cmd, key, from, n)
          local j = 0
          while j < n do
            local k = math.min(n - j, 1000)
            redis.call(cmd, key, unpack(ARGV, from + j, from + j + k - 1))
            j = j + k
          end
        end
        -- A section: its count of arguments, then the arguments; runs it on key `s .. suffix`
        -- when `write` (the key is made only then: most sections of a round are empty).
        local function section(write, cmd, s, suffix)
          local n = tonumber(ARGV[i]); i = i + 1
          if write and n > 0 then many(cmd, s .. suffix, i, n) end
          i = i + n
        end
        for b = 1, tonumber(ARGV[3]) do
          local sid, epoch, flags = ARGV[i], ARGV[i + 1], ARGV[i + 2]
          local lastSeq, lastCall, acked, ready, nextCb, tags, lateConsumed =
            ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], ARGV[i + 8], tonumber(ARGV[i + 9])
          local token, origin, peer, since = ARGV[i + 10], ARGV[i + 11], ARGV[i + 12], ARGV[i + 13]
          i = i + 14
          local s = 'dsb:s:{' .. sid .. '}'
          local snapshot = flags ~= '' and string.find(flags, 's', 1, true) ~= nil
          local cur = redis.call('HMGET', s, 'node', 'epoch')
          local status = 'ok'
          if cur[1] then
            if cur[1] ~= node or cur[2] ~= epoch then status = 'moved' end
          elseif flags ~= '' and string.find(flags, 'c', 1, true) then
            local h = redis.sha1hex(token)
            redis.call('HSET', s, 'node', node, 'epoch', epoch, 'tok', h, 'origin', origin, 'peer', peer,
              'since', since, 'tags', '[]', 'ready', '0', 'lastCall', '0', 'lastSeq', '0', 'acked', '0', 'nextCb', '1')
            redis.call('PEXPIRE', s, ttl)
            redis.call('SET', 'dsb:tok:' .. h, sid, 'PX', ttl)
            redis.call('SADD', 'dsb:nodesessions:' .. node, sid)
            redis.call('SADD', 'dsb:nodes', node)
          else
            status = 'gone'
          end
          local write = status == 'ok'
          if write and snapshot then redis.call('DEL', s .. ':log', s .. ':run', s .. ':nc', s .. ':held') end
          section(write, 'ZADD', s, ':log')   -- seq, bytes
          section(write, 'HDEL', s, ':run')   -- call ids
          section(write, 'HSET', s, ':run')   -- call id, RUNNER|r or RUNNER|c|STUB
          section(write, 'HDEL', s, ':nc')    -- callbackIds
          section(write, 'HSET', s, ':nc')    -- callbackId, origin
          section(write, 'HDEL', s, ':held')  -- callbackIds
          section(write, 'HSET', s, ':held')  -- callbackId, the invoke's tail
          if write and acked == '' and ready == '' and nextCb == '' and tags == '' and lateConsumed == 0 and not snapshot then
            -- The usual batch: only the numbers of the log and the calls moved. Only the owner
            -- writes (fenced above), so its numbers only grow.
            if lastCall ~= '' then
              redis.call('HSET', s, 'lastSeq', lastSeq, 'lastCall', lastCall)
            else
              redis.call('HSET', s, 'lastSeq', lastSeq)
            end
          elseif write then
            local fields = {'lastSeq', lastSeq}
            if lastCall ~= '' then table.insert(fields, 'lastCall'); table.insert(fields, lastCall) end
            if acked ~= '' then
              table.insert(fields, 'acked'); table.insert(fields, acked)
              redis.call('ZREMRANGEBYSCORE', s .. ':log', '-inf', acked)
            end
            if ready ~= '' then table.insert(fields, 'ready'); table.insert(fields, ready) end
            if nextCb ~= '' then table.insert(fields, 'nextCb'); table.insert(fields, nextCb) end
            if tags ~= '' then
              local old = cjson.decode(redis.call('HGET', s, 'tags') or '[]')
              for _, t in ipairs(old) do redis.call('SREM', 'dsb:tag:' .. t, sid) end
              for _, t in ipairs(cjson.decode(tags)) do redis.call('SADD', 'dsb:tag:' .. t, sid) end
              table.insert(fields, 'tags'); table.insert(fields, tags)
            end
            if lateConsumed > 0 then redis.call('LTRIM', s .. ':late', lateConsumed, -1) end
            redis.call('HSET', s, unpack(fields))
            if snapshot then
              local tok = redis.call('HGET', s, 'tok')
              for _, k in ipairs({s, s .. ':log', s .. ':run', s .. ':nc', s .. ':held', s .. ':late', 'dsb:tok:' .. tok}) do
                redis.call('PEXPIRE', k, ttl)
              end
            end
          end
          out[b] = status
        end
        return out
        """#

    /// Gives the keys of a dead node's sessions an expiry (a key made after the node's last
    /// renewal pass has none), and forgets the node once none of its sessions is left; a
    /// chunk of the node's sessions per call (`SSCAN`: a script runs without interruption,
    /// and a dead node may leave thousands). ARGV: the dead node, ttl, the scan's cursor
    /// (`0` to start), about how many sessions to look at. Answers `{cursor, left}`: the
    /// cursor of the next chunk (`0`: the scan is complete) and the sessions still left.
    static let reap = #"""
        local node, ttl = ARGV[1], ARGV[2]
        local set = 'dsb:nodesessions:' .. node
        local call = redis.call
        local scan = call('SSCAN', set, ARGV[3], 'COUNT', ARGV[4])
        for _, sid in ipairs(scan[2]) do
          local s = 'dsb:s:{' .. sid .. '}'
          local cur = call('HMGET', s, 'node', 'tok')
          if cur[1] ~= node then
            call('SREM', set, sid)
          else
            for _, k in ipairs({s, s .. ':log', s .. ':run', s .. ':nc', s .. ':held', s .. ':late', 'dsb:tok:' .. (cur[2] or '')}) do
              if call('PTTL', k) == -1 then call('PEXPIRE', k, ttl) end
            end
          end
        end
        local left = call('SCARD', set)
        if left == 0 then
          call('DEL', set)
          if call('EXISTS', 'dsb:node:' .. node) == 0 then call('SREM', 'dsb:nodes', node) end
        end
        return {scan[1], left}
        """#

    /// Takes a session over (docs/CLUSTER.md, "Taking a session over"). ARGV: token, node,
    /// the page's ack, ttl. Answers `{'none'}` (no such session), `{'stale'}` (the page saw
    /// a `seq` the journal lacks) or `{'ok', sid, record, log, run, nc, held, late, epoch,
    /// previous node, lost runners}`: the log above the journal's ack with scores, the hashes
    /// flat, the late list in order, and which runners of the run table (`NAME#INCARNATION`)
    /// are gone: no record of NAME, or a record of another incarnation (a restarted node).
    static let claim = #"""
        local h = redis.sha1hex(ARGV[1])
        local sid = redis.call('GET', 'dsb:tok:' .. h)
        if not sid then return {'none'} end
        local s = 'dsb:s:{' .. sid .. '}'
        local flat = redis.call('HGETALL', s)
        if #flat == 0 then return {'none'} end
        local r = {}
        for i = 1, #flat, 2 do r[flat[i]] = flat[i + 1] end
        if r.tok ~= h then return {'none'} end
        if tonumber(ARGV[3]) > tonumber(r.lastSeq) then return {'stale'} end
        local prev = r.node
        local epoch = redis.call('HINCRBY', s, 'epoch', 1)
        redis.call('HSET', s, 'node', ARGV[2])
        redis.call('SREM', 'dsb:nodesessions:' .. prev, sid)
        redis.call('SADD', 'dsb:nodesessions:' .. ARGV[2], sid)
        local ttl = tonumber(ARGV[4])
        local log = redis.call('ZRANGEBYSCORE', s .. ':log', '(' .. r.acked, '+inf', 'WITHSCORES')
        local run = redis.call('HGETALL', s .. ':run')
        local lost, seen = {}, {}
        for i = 2, #run, 2 do
          local r = string.match(run[i], '^([^|]*)|')
          if r and not seen[r] then
            seen[r] = true
            local name, inc = string.match(r, '^(.*)#([^#]*)$')
            if not name then name, inc = r, nil end
            local live = redis.call('HGET', 'dsb:node:' .. name, 'inc')
            if not live or (inc and live ~= inc) then table.insert(lost, r) end
          end
        end
        local nc = redis.call('HGETALL', s .. ':nc')
        local held = redis.call('HGETALL', s .. ':held')
        local late = redis.call('LRANGE', s .. ':late', 0, -1)
        flat = redis.call('HGETALL', s)
        for _, k in ipairs({s, s .. ':log', s .. ':run', s .. ':nc', s .. ':held', s .. ':late', 'dsb:tok:' .. h}) do
          redis.call('PEXPIRE', k, ttl)
        end
        return {'ok', sid, flat, log, run, nc, held, late, epoch, prev, lost}
        """#

    /// Passes late messages to a session's owner. ARGV: sid, ttl, items (``LateItem``).
    /// Answers the owner's name, or `false` when the session has no record.
    static let pushLate = #"""
        local s = 'dsb:s:{' .. ARGV[1] .. '}'
        local owner = redis.call('HGET', s, 'node')
        if not owner then return false end
        for i = 3, #ARGV do redis.call('RPUSH', s .. ':late', ARGV[i]) end
        redis.call('PEXPIRE', s .. ':late', tonumber(ARGV[2]))
        return owner
        """#

    /// Reads a session's late list from `offset` (the items before it were read already
    /// and their trim is not written yet; the owner appends what it reads and a later
    /// journal write trims it). ARGV: sid, node, epoch, offset. Answers the items, or
    /// `false` when the node does not own the session.
    static let readLate = #"""
        local s = 'dsb:s:{' .. ARGV[1] .. '}'
        local cur = redis.call('HMGET', s, 'node', 'epoch')
        if cur[1] ~= ARGV[2] or cur[2] ~= ARGV[3] then return false end
        return redis.call('LRANGE', s .. ':late', tonumber(ARGV[4]), -1)
        """#

    /// Deletes a session that ended on its owner. ARGV: sid, node, epoch.
    static let end = #"""
        local sid = ARGV[1]
        local s = 'dsb:s:{' .. sid .. '}'
        local cur = redis.call('HMGET', s, 'node', 'epoch', 'tok', 'tags')
        if cur[1] ~= ARGV[2] or cur[2] ~= ARGV[3] then return 0 end
        for _, t in ipairs(cjson.decode(cur[4] or '[]')) do redis.call('SREM', 'dsb:tag:' .. t, sid) end
        redis.call('DEL', s, s .. ':log', s .. ':run', s .. ':nc', s .. ':held', s .. ':late', 'dsb:tok:' .. (cur[3] or ''))
        redis.call('SREM', 'dsb:nodesessions:' .. ARGV[2], sid)
        return 1
        """#

    /// The owner of the session a token names, and the owner's incarnation. ARGV: token.
    /// Answers `{node, incarnation}` (`''` when the node has no record: it is gone), or
    /// `false`.
    static let ownerByToken = #"""
        local sid = redis.call('GET', 'dsb:tok:' .. redis.sha1hex(ARGV[1]))
        if not sid then return false end
        local node = redis.call('HGET', 'dsb:s:{' .. sid .. '}', 'node')
        if not node then return false end
        return {node, redis.call('HGET', 'dsb:node:' .. node, 'inc') or ''}
        """#

    /// Renews the expiry of sessions a node owns (idle ones get no journal writes).
    /// ARGV: node, ttl, sids. Answers the sids whose record names another node. A missing
    /// record is not one of them: after Redis restarted empty the node's snapshots write it
    /// again, and a renewal that came first must not make the node let go of its sessions.
    static let renew = #"""
        local node, ttl = ARGV[1], ARGV[2]
        local call = redis.call
        local gone = {}
        for i = 3, #ARGV do
          local s = 'dsb:s:{' .. ARGV[i] .. '}'
          local cur = call('HMGET', s, 'node', 'tok')
          local owner = cur[1]
          if owner == node then
            -- Seven calls written out: a table per session cost a third more (about 5.5 µs
            -- against 3.9 µs a session), and ttl stays a string (a number is converted on
            -- every call).
            call('PEXPIRE', s, ttl)
            call('PEXPIRE', s .. ':log', ttl)
            call('PEXPIRE', s .. ':run', ttl)
            call('PEXPIRE', s .. ':nc', ttl)
            call('PEXPIRE', s .. ':held', ttl)
            call('PEXPIRE', s .. ':late', ttl)
            call('PEXPIRE', 'dsb:tok:' .. cur[2], ttl)
          elseif owner then
            -- another node took it; no record (yet) leaves it alone: a Redis restarted
            -- empty gets this node's snapshots in its next journal round
            gone[#gone + 1] = ARGV[i]
          end
        end
        return gone
        """#
}

extension ClusterScripts {
    static let journalScript = RedisScript(journal)
    static let claimScript = RedisScript(claim)
    static let pushLateScript = RedisScript(pushLate)
    static let readLateScript = RedisScript(readLate)
    static let endScript = RedisScript(end)
    static let renewScript = RedisScript(renew)
    static let reapScript = RedisScript(reap)
    static let ownerByTokenScript = RedisScript(ownerByToken)
    /// Every script, for `SCRIPT LOAD` on each connection.
    static let all = [
        journalScript, claimScript, pushLateScript, readLateScript, endScript, renewScript, ownerByTokenScript,
        reapScript,
    ]
}
