/// One entry read from the stream: its id (`ms-seq`, increasing) and its payload — or, for the
/// entry that starts an epoch (`ClusterKeys.epoch`), that epoch.
public struct StreamRecord: Equatable, Sendable {
    public var id: String
    public var payload: [UInt8]
    /// The epoch this entry starts (field `m`); nil for the entries of changes (field `e`).
    public var epoch: String?

    public init(id: String, payload: [UInt8], epoch: String? = nil) {
        self.id = id
        self.payload = payload
        self.epoch = epoch
    }

    /// The field that holds an entry's payload.
    static let field = Array("e".utf8)
    /// The field of an epoch entry.
    static let epochField = Array("m".utf8)

    /// The records of an `XRANGE` reply, or of one stream in an `XREAD` reply:
    /// `[[id, [field, value, …]], …]`. An entry with neither field is skipped.
    static func records(_ reply: RedisReply) throws -> [StreamRecord] {
        guard let items = reply.array else {
            if reply.isNull { return [] }
            throw RedisError.unexpectedReply("expected stream entries, got \(reply)")
        }
        var records: [StreamRecord] = []
        records.reserveCapacity(items.count)
        for item in items {
            guard let pair = item.array, pair.count == 2, let id = pair[0].string, let fields = pair[1].array else {
                throw RedisError.unexpectedReply("a stream entry of another shape")
            }
            var index = 0
            while index + 1 < fields.count {
                if case .bytes(let name) = fields[index], case .bytes(let value) = fields[index + 1] {
                    if name == field {
                        records.append(StreamRecord(id: id, payload: value))
                        break
                    }
                    if name == epochField {
                        records.append(StreamRecord(id: id, payload: [], epoch: String(decoding: value, as: UTF8.self)))
                        break
                    }
                }
                index += 2
            }
        }
        return records
    }

    /// The records of an `XREAD` reply for one stream (`[[key, entries]]`), empty on a timeout.
    static func readReply(_ reply: RedisReply) throws -> [StreamRecord] {
        if reply.isNull { return [] }
        guard let streams = reply.array else { throw RedisError.unexpectedReply("expected an XREAD reply, got \(reply)") }
        var records: [StreamRecord] = []
        for stream in streams {
            guard let pair = stream.array, pair.count == 2 else { throw RedisError.unexpectedReply("an XREAD stream of another shape") }
            records.append(contentsOf: try StreamRecord.records(pair[1]))
        }
        return records
    }
}
