/// Walks a command line for chartcast-load's option parsers (`LoadOptions`, `SoakOptions`,
/// `SendFloorOptions`): `--name=value` is taken as `--name value`, and every value is read with
/// the option's name, so each error says which option was wrong and why.
struct ArgumentCursor {
    private let arguments: [String]
    private var index = -1

    init(_ arguments: [String]) {
        self.arguments = arguments.flatMap { arg -> [String] in
            guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return [arg] }
            return [String(arg[..<eq]), String(arg[arg.index(after: eq)...])]
        }
    }

    /// The next argument, nil after the last.
    mutating func next() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }

    /// The value after option `name`.
    /// - Throws: `LoadOptionsError` when there is none.
    mutating func value(_ name: String) throws -> String {
        index += 1
        guard index < arguments.count else { throw LoadOptionsError("\(name) needs a value") }
        return arguments[index]
    }

    /// A finite number of at least `min` after option `name`.
    mutating func number(_ name: String, min: Double) throws -> Double {
        let text = try value(name)
        guard let v = Double(text), v.isFinite, v >= min else { throw LoadOptionsError("\(name): bad value \(text)") }
        return v
    }

    /// An integer of at least `min` (a count: 0) after option `name`.
    mutating func integer(_ name: String, min: Int = 0) throws -> Int {
        let text = try value(name)
        guard let v = Int(text), v >= min else { throw LoadOptionsError("\(name): bad value \(text)") }
        return v
    }

    /// One of `T`'s cases, named by its raw value, after option `name`.
    /// - Throws: `LoadOptionsError` naming every case ("expected hover, scrub, range or mixed, got …").
    mutating func choice<T: RawRepresentable & CaseIterable>(_ name: String, of _: T.Type) throws -> T where T.RawValue == String {
        let text = try value(name)
        guard let chosen = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue)
            let list = names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
            throw LoadOptionsError("\(name): expected \(list), got \(text)")
        }
        return chosen
    }
}
