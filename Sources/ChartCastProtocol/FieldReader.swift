/// Typed access to one JSON object's members, with `bad_field` errors that name the field by its
/// path (`plot.width`, `charts[2].mark`).
///
/// Shared by every decoder in this module, client and server messages and chart specs alike.
struct FieldReader {
    /// How errors are worded.
    enum Style {
        /// Protocol messages: `field "plot.width" must be positive`.
        case field
        /// Chart specs and dashboards, as the data API documents them:
        /// `charts[2].mark: "pie" is not one of bar, line, point, area`.
        case path
    }

    let json: JSONValue
    /// Path of this object inside the message, with a trailing dot (`"plot."`), or empty.
    var prefix = ""
    /// Largest accepted coordinate magnitude (`ProtocolLimits.maxCoordinate`).
    var maxCoordinate = ProtocolLimits.v1.maxCoordinate
    var style = Style.field

    init(json: JSONValue, prefix: String = "", maxCoordinate: Double = ProtocolLimits.v1.maxCoordinate, style: Style = .field) {
        self.json = json
        self.prefix = prefix
        self.maxCoordinate = maxCoordinate
        self.style = style
    }

    /// A reader for the object member `name`, its errors prefixed with its path.
    func nested(_ name: String) throws -> FieldReader {
        FieldReader(json: try object(name), prefix: "\(prefix)\(name).", maxCoordinate: maxCoordinate, style: style)
    }

    /// A reader for the value at `path` (an array element), whatever its members.
    func reader(for value: JSONValue, path itemPath: String) -> FieldReader {
        FieldReader(json: value, prefix: itemPath + ".", maxCoordinate: maxCoordinate, style: style)
    }

    func path(_ name: String) -> String { "\(prefix)\(name)" }

    func fail(_ name: String, _ problem: String) -> ProtocolError {
        Self.fail(path: path(name), problem, style: style)
    }

    static func fail(path: String, _ problem: String, style: Style) -> ProtocolError {
        switch style {
        case .field: return ProtocolError(.badField, "field \"\(path)\" \(problem)")
        case .path: return ProtocolError(.badField, "\(path): \(problem)")
        }
    }

    func has(_ name: String) -> Bool {
        guard let value = json[name] else { return false }
        return !value.isNull
    }

    func required(_ name: String) throws -> JSONValue {
        guard let value = json[name], !value.isNull else {
            switch style {
            case .field: throw ProtocolError(.badField, "missing field \"\(path(name))\"")
            case .path: throw ProtocolError(.badField, "\(path(name)): is required")
            }
        }
        return value
    }

    func string(_ name: String) throws -> String {
        let value = try required(name)
        guard let text = value.string else { throw fail(name, "must be a string, got \(value.typeName)") }
        return text
    }

    func optionalString(_ name: String) throws -> String? {
        guard has(name) else { return nil }
        return try string(name)
    }

    func object(_ name: String) throws -> JSONValue {
        let value = try required(name)
        guard value.object != nil else { throw fail(name, "must be an object, got \(value.typeName)") }
        return value
    }

    func array(_ name: String) throws -> [JSONValue] {
        let value = try required(name)
        guard let items = value.array else { throw fail(name, "must be an array, got \(value.typeName)") }
        return items
    }

    /// Any finite number.
    func number(_ name: String) throws -> Double {
        let value = try required(name)
        guard let number = value.number else { throw fail(name, "must be a number, got \(value.typeName)") }
        guard number.isFinite else { throw fail(name, "must be finite") }
        return number
    }

    func optionalNumber(_ name: String) throws -> Double? {
        guard has(name) else { return nil }
        return try number(name)
    }

    /// A whole number in `range`.
    func integer(_ name: String, in range: ClosedRange<Int> = 0...Int(Int32.max)) throws -> Int {
        let number = try number(name)
        guard number == number.rounded(), number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            throw fail(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(number)
    }

    /// A finite pointer coordinate or plot value of sane magnitude.
    func coordinate(_ name: String) throws -> Double {
        let number = try number(name)
        guard abs(number) <= maxCoordinate else {
            throw fail(name, "is out of range (|v| ≤ \(JSONWriter.format(maxCoordinate)))")
        }
        return number
    }

    func bool(_ name: String) throws -> Bool {
        let value = try required(name)
        guard let flag = value.bool else { throw fail(name, "must be a boolean, got \(value.typeName)") }
        return flag
    }

    func optionalBool(_ name: String) throws -> Bool? {
        guard has(name) else { return nil }
        return try bool(name)
    }

    /// A string that must be one of the wire names `parse` accepts.
    func oneOf<T>(_ name: String, _ parse: (String) -> T?, names: [String]) throws -> T {
        let text = try string(name)
        guard let value = parse(text) else {
            switch style {
            case .field: throw fail(name, "must be one of \(names.joined(separator: ", ")), got \"\(text.clipped(to: 32))\"")
            case .path: throw fail(name, "\"\(text.clipped(to: 32))\" is not one of \(names.joined(separator: ", "))")
            }
        }
        return value
    }

    /// The optional `ref`: a string of at most `maxLength` UTF-8 bytes.
    func ref(maxLength: Int) throws -> String? {
        guard let ref = try optionalString("ref") else { return nil }
        guard ref.utf8.count <= maxLength else { throw fail("ref", "is longer than \(maxLength) bytes") }
        return ref
    }
}
