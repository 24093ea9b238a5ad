import CLibWebsockets

extension WebSocketServer {
    /// Creates the libwebsockets context for `info` on the configured event loop.
    ///
    /// With `.libev`, the context is created on a libev loop of the service loop's own
    /// (`foreign_loops`, `LWS_SERVER_OPTION_LIBEV`); libwebsockets then loads its libev plugin.
    /// When that fails, the context is created on libwebsockets' own poll loop instead: if that
    /// works, libev was the fault (the plugin or libev missing), which is logged, and the server
    /// still starts; if not, the poll attempt's errors are the answer (a bad certificate, a port
    /// in use).
    /// - Returns: the context (nil on failure) and the error lines libwebsockets logged meanwhile.
    /// - Note: caller thread, before the service thread starts.
    func createContext(_ info: inout lws_context_creation_info) -> (OpaquePointer?, [String]) {
        if configuration.eventLoop == .libev {
            if let evLoop = loop.makeEvLoop() {
                var withLibev = info
                withLibev.options |= UInt64(LWS_SERVER_OPTION_LIBEV)
                var foreign: [UnsafeMutableRawPointer?] = [UnsafeMutableRawPointer(evLoop.loop)]
                let (created, errors) = foreign.withUnsafeMutableBufferPointer { loops in
                    withLibev.foreign_loops = loops.baseAddress
                    return LibraryErrorCapture.capturing { lws_create_context(&withLibev) }
                }
                if created != nil { return (created, errors) }
                loop.discardEvLoop()
                // The same context on the poll loop: when it cannot be created either, the fault
                // is the configuration's (a certificate, the port), reported as such.
                let (onPoll, pollErrors) = LibraryErrorCapture.capturing { lws_create_context(&info) }
                if onPoll != nil {
                    WebSocketLog.log(.warn, "could not run libwebsockets on a libev loop (is libwebsockets-evlib-ev installed?); "
                                     + "using its poll loop\(errors.isEmpty ? "" : ": " + errors.joined(separator: "; "))")
                }
                return (onPoll, pollErrors)
            } else {
                WebSocketLog.log(.warn, "libev could not create an epoll loop; using libwebsockets' poll loop")
            }
        }
        return LibraryErrorCapture.capturing { lws_create_context(&info) }
    }

    /// The event loop the service thread actually runs (`.poll` when `.libev` could not start).
    public var runningEventLoop: WebSocketEventLoop { loop.evLoop == nil ? .poll : .libev }
}
