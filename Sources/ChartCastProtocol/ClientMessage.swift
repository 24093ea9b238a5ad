import ChartEngine

/// One message from a browser or headless viewer, validated.
public enum ClientMessage: Equatable, Sendable {
    /// Sets the viewer's display name.
    case hello(name: String)
    /// The viewer's plot frame for one chart.
    case viewport(chart: String, viewport: Viewport)
    /// A raw pointer event in CSS pixels from the chart canvas's top-left corner.
    case pointer(chart: String, phase: PointerPhase, x: Double, y: Double, ref: String?)
    /// A keyboard command on a focused chart.
    case key(chart: String, command: KeyCommand, shift: Bool, ref: String?)
}

extension ClientMessage {
    /// Longest accepted `ref`, in bytes of UTF-8.
    public static let maxRefLength = 64
    /// Longest accepted viewer name, in characters.
    public static let maxNameLength = 40
    /// Pointer coordinates and plot frames beyond this magnitude (CSS px) are refused as absurd.
    public static let maxCoordinate = 1_000_000.0

    /// Parses and validates one text frame.
    ///
    /// Unknown members are ignored (forward compatibility). Whether the chart id exists is the
    /// server's question, not the decoder's.
    /// - Throws: `ProtocolError` with `bad_json`, `unknown_type` or `bad_field`.
    public static func decode(_ bytes: [UInt8]) throws -> ClientMessage {
        let json: JSONValue
        do {
            json = try JSONReader.parse(bytes)
        } catch let error as JSONReadError {
            throw ProtocolError(.badJSON, "invalid JSON: \(error)")
        }
        guard json.object != nil else {
            throw ProtocolError(.badJSON, "a message must be a JSON object, got \(json.typeName)")
        }
        guard let typeValue = json["type"] else { throw ProtocolError(.badField, "missing field \"type\"") }
        guard let type = typeValue.string else {
            throw ProtocolError(.badField, "field \"type\" must be a string, got \(typeValue.typeName)")
        }
        var fields = FieldReader(json: json)
        switch type {
        case "hello":
            let name = try fields.string("name").trimmingSpaces()
            guard !name.isEmpty else { throw ProtocolError(.badField, "field \"name\" must not be empty") }
            guard name.count <= maxNameLength else {
                throw ProtocolError(.badField, "field \"name\" is longer than \(maxNameLength) characters")
            }
            return .hello(name: name)
        case "viewport":
            let chart = try fields.string("chart")
            let plot = try fields.object("plot")
            var plotFields = FieldReader(json: plot, prefix: "plot.")
            let x = try plotFields.coordinate("x")
            let y = try plotFields.coordinate("y")
            let width = try plotFields.coordinate("width")
            let height = try plotFields.coordinate("height")
            guard width > 0, height > 0 else {
                throw ProtocolError(.badField, "plot.width and plot.height must be positive")
            }
            let rtl = try fields.optionalBool("rtl") ?? false
            return .viewport(chart: chart, viewport: Viewport(x: x, y: y, width: width, height: height, rtl: rtl))
        case "pointer":
            let chart = try fields.string("chart")
            let phaseName = try fields.string("phase")
            guard let phase = PointerPhase(rawValue: phaseName) else {
                throw ProtocolError(.badField, "field \"phase\" must be one of down, move, up, leave, got \"\(phaseName.prefix(32))\"")
            }
            let x = try fields.coordinate("x")
            let y = try fields.coordinate("y")
            return .pointer(chart: chart, phase: phase, x: x, y: y, ref: try fields.ref())
        case "key":
            let chart = try fields.string("chart")
            let keyName = try fields.string("key")
            guard let command = KeyCommand(rawValue: keyName) else {
                throw ProtocolError(.badField, "field \"key\" must be one of left, right, home, end, enter, escape, got \"\(keyName.prefix(32))\"")
            }
            let shift = try fields.optionalBool("shift") ?? false
            return .key(chart: chart, command: command, shift: shift, ref: try fields.ref())
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type.prefix(32))\"")
        }
    }
}

/// Typed access to one object's members with protocol errors naming the field.
private struct FieldReader {
    let json: JSONValue
    var prefix = ""

    func required(_ name: String) throws -> JSONValue {
        guard let value = json[name], !value.isNull else {
            throw ProtocolError(.badField, "missing field \"\(prefix)\(name)\"")
        }
        return value
    }

    func string(_ name: String) throws -> String {
        let value = try required(name)
        guard let text = value.string else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" must be a string, got \(value.typeName)")
        }
        return text
    }

    func object(_ name: String) throws -> JSONValue {
        let value = try required(name)
        guard value.object != nil else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" must be an object, got \(value.typeName)")
        }
        return value
    }

    /// A finite number of sane magnitude.
    func coordinate(_ name: String) throws -> Double {
        let value = try required(name)
        guard let number = value.number else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" must be a number, got \(value.typeName)")
        }
        guard number.isFinite else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" must be finite")
        }
        guard abs(number) <= ClientMessage.maxCoordinate else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" is out of range (|v| ≤ 1e6)")
        }
        return number
    }

    func optionalBool(_ name: String) throws -> Bool? {
        guard let value = json[name], !value.isNull else { return nil }
        guard let flag = value.bool else {
            throw ProtocolError(.badField, "field \"\(prefix)\(name)\" must be a boolean, got \(value.typeName)")
        }
        return flag
    }

    func ref() throws -> String? {
        guard let value = json["ref"], !value.isNull else { return nil }
        guard let ref = value.string else {
            throw ProtocolError(.badField, "field \"ref\" must be a string, got \(value.typeName)")
        }
        guard ref.utf8.count <= ClientMessage.maxRefLength else {
            throw ProtocolError(.badField, "field \"ref\" is longer than \(ClientMessage.maxRefLength) bytes")
        }
        return ref
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
