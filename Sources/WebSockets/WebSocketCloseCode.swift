/// Well-known WebSocket close codes (RFC 6455 §7.4) and the rule for which
/// codes may be put on the wire.
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    public static let invalidPayload: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let messageTooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// `code` if an endpoint may send it, else 1000.
    ///
    /// 1005, 1006 and 1015 are reserved for reporting and never sent; codes
    /// below 1000 and above 4999 do not exist; 1016–2999 are unassigned.
    public static func sendable(_ code: UInt16) -> UInt16 {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return code
        default: return normal
        }
    }

    /// Whether a peer may have sent `code` in a close frame (RFC 6455 §7.4 and the IANA
    /// registry): 1000–1003, 1007–1014 and 3000–4999.
    public static func isValidReceived(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
