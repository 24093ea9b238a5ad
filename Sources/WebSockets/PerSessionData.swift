/// The per-session user data of one server wsi: what libwebsockets hands to every callback as
/// `user` (`per_session_data_size` bytes it allocates zeroed, per wsi and protocol binding).
///
/// Two slots, each holding one retained Swift object or nothing:
/// - `connection`: the `WebSocketConnection`, from `ESTABLISHED` until `CLOSED` (or
///   `WSI_DESTROY` should `CLOSED` not come). Hot callbacks (`RECEIVE`, `SERVER_WRITEABLE`) find
///   their connection with one load, no hashing.
/// - `exchange`: the `HTTPExchange` of the HTTP request in progress (body being read, answer
///   awaited, response being written), until the response is out or libwebsockets drops the
///   binding (`HTTP_DROP_PROTOCOL` — also on keep-alive's next transaction — `CLOSED_HTTP`,
///   `WSI_DESTROY`). This slot holds the exchange's only strong reference; detaching it also
///   clears the exchange's wsi, so an `HTTPResponder` answering late finds nothing.
///
/// Each `detach` takes the reference back and clears the slot, so whichever callback comes first
/// releases it and the others find nothing: every object is released exactly once. libwebsockets
/// frees the memory only after `WSI_DESTROY` or after a protocol (re)bind has called the unbind
/// callback, so a slot never dangles while it is set.
/// - Note: service thread only (used from inside callbacks).
struct PerSessionData {
    /// The bytes to ask libwebsockets for (`lws_protocols.per_session_data_size`).
    static let size = 2 * MemoryLayout<UnsafeMutableRawPointer?>.stride

    private static let connectionOffset = 0
    private static let exchangeOffset = MemoryLayout<UnsafeMutableRawPointer?>.stride

    /// The callback's `user` pointer; nil for callbacks without a wsi binding.
    let user: UnsafeMutableRawPointer?

    init(_ user: UnsafeMutableRawPointer?) {
        self.user = user
    }

    /// The open connection of this wsi, without taking ownership.
    /// - Complexity: O(1): one load.
    var connection: WebSocketConnection? {
        return object(at: PerSessionData.connectionOffset)
    }

    /// Stores `connection` (retained). Returns false when there is no user data to store it in.
    func attach(_ connection: WebSocketConnection) -> Bool {
        return store(connection, at: PerSessionData.connectionOffset)
    }

    /// Takes the connection back and clears the slot; nil when it was already taken.
    func detachConnection() -> WebSocketConnection? {
        return take(at: PerSessionData.connectionOffset)
    }

    /// The HTTP exchange in progress on this wsi, without taking ownership.
    var exchange: HTTPExchange? {
        return object(at: PerSessionData.exchangeOffset)
    }

    /// Stores `exchange` (retained), replacing (and detaching) any previous one. Returns false
    /// when there is no user data to store it in.
    func attach(_ exchange: HTTPExchange) -> Bool {
        detachExchange()
        return store(exchange, at: PerSessionData.exchangeOffset)
    }

    /// Takes the exchange back, clears the slot and the exchange's wsi; nil when there was none.
    @discardableResult
    func detachExchange() -> HTTPExchange? {
        let exchange: HTTPExchange? = take(at: PerSessionData.exchangeOffset)
        exchange?.detach()
        return exchange
    }

    // Raw loads and stores of an optional pointer: the memory is never bound to a Swift type.

    private func object<T: AnyObject>(at offset: Int) -> T? {
        guard let user = user,
              let raw = user.load(fromByteOffset: offset, as: UnsafeMutableRawPointer?.self) else { return nil }
        return Unmanaged<T>.fromOpaque(raw).takeUnretainedValue()
    }

    private func store<T: AnyObject>(_ object: T, at offset: Int) -> Bool {
        guard let user = user else { return false }
        _ = take(at: offset) as T?
        user.storeBytes(of: Unmanaged.passRetained(object).toOpaque(), toByteOffset: offset,
                        as: UnsafeMutableRawPointer?.self)
        return true
    }

    private func take<T: AnyObject>(at offset: Int) -> T? {
        guard let user = user,
              let raw = user.load(fromByteOffset: offset, as: UnsafeMutableRawPointer?.self) else { return nil }
        user.storeBytes(of: nil, toByteOffset: offset, as: UnsafeMutableRawPointer?.self)
        return Unmanaged<T>.fromOpaque(raw).takeRetainedValue()
    }
}
