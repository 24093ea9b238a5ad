import ChartCastProtocol
import ChartEngine

extension FuzzTarget {
    /// `JSONReader.parse`: what it accepts is well-formed UTF-8 and survives a write and a read
    /// unchanged (but for literals too large for a double: read as ±infinity, which every caller
    /// refuses, and written as `null`); what it refuses names an offset inside the input.
    static let jsonReader = FuzzTarget(name: "json-reader", summary: "JSONReader (strict RFC 8259, depth 32)") { bytes in
        do {
            let value = try JSONReader.parse(bytes)
            expect(String(validating: bytes, as: UTF8.self) != nil, "accepted a document that is not well-formed UTF-8")
            let written = value.serialized
            let reread: JSONValue
            do { reread = try JSONReader.parse(written) } catch { fatalError("cannot read back its own output: \(error)") }
            expect(reread == finite(value), "the value changed through a write and a read")
            expect(reread.serialized == written, "writing is not stable")
            expect(written.count <= 6 * bytes.count + 2, "\(bytes.count) bytes were written back as \(written.count)")
        } catch let error as JSONReadError {
            expect((0...bytes.count).contains(error.offset), "error offset \(error.offset) outside the \(bytes.count)-byte input")
            expect(error.reason.utf8.count <= maxErrorMessageBytes, "a \(error.reason.utf8.count)-byte reason")
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }

    /// `ClientMessage.decode`, as the server calls it on every text frame up to the message
    /// limit: it agrees with `decodeGeneric` (the pointer and viewport fast paths change nothing); a decoded
    /// message stays within the limits, re-encodes and decodes to itself; a refusal is a
    /// bounded `ProtocolError` whose `ref` is a valid one.
    static let clientMessage = FuzzTarget(name: "client-message", summary: "ClientMessage.decode (every frame a viewer sends)") { bytes in
        let limits = ProtocolLimits.v1
        guard bytes.count <= limits.maxMessageBytes else { return }  // the server closes with 1009 first
        // The fast paths (pointer, viewport) answer what the generic decoder answers, message or error.
        let decoded = Result { try ClientMessage.decode(bytes, limits: limits) }
        let generic = Result { try ClientMessage.decodeGeneric(bytes, limits: limits) }
        switch (decoded, generic) {
        case (.success(let a), .success(let b)): expect(a == b, "decode gave \(a), decodeGeneric \(b)")
        case (.failure(let a as ProtocolError), .failure(let b as ProtocolError)): expect(a == b, "decode refused with \(a), decodeGeneric \(b)")
        default: expect(false, "decode and decodeGeneric disagree: \(decoded) / \(generic)")
        }
        switch decoded {
        case .success(let message):
            checkLimits(message, limits)
            let encoded = message.encode()
            let again: ClientMessage
            do { again = try ClientMessage.decode(encoded, limits: limits) } catch {
                fatalError("cannot decode its own encoding \(String(decoding: encoded.prefix(300), as: UTF8.self)): \(error)")
            }
            expect(again == message, "\(message) came back as \(again)")
            expect(again.encode() == encoded, "encoding is not stable")
        case .failure(let error as ProtocolError):
            checkRefusal(error, limits)
        case .failure(let error):
            fatalError("unexpected error type: \(error)")
        }
    }

    /// `value` with every non-finite number replaced by `null`, as `JSONWriter` writes it.
    static func finite(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let n) where !n.isFinite: return .null
        case .array(let items): return .array(items.map(finite))
        case .object(let members): return .object(members.map { ($0.0, finite($0.1)) })
        default: return value
        }
    }

    static func checkLimits(_ message: ClientMessage, _ limits: ProtocolLimits) {
        if let ref = message.ref { expect(ref.utf8.count <= limits.maxRefLength, "a \(ref.utf8.count)-byte ref") }
        switch message {
        case .hello(let hello):
            expect(!hello.name.isEmpty, "an empty name")
            expect(hello.name.unicodeScalars.count <= limits.maxNameLength, "a name of \(hello.name.unicodeScalars.count) scalars")
            expect(hello.name.utf8.count <= limits.maxNameBytes, "a name of \(hello.name.utf8.count) bytes")
        case .pointer(let pointer):
            expect(abs(pointer.x) <= limits.maxCoordinate && abs(pointer.y) <= limits.maxCoordinate, "a coordinate out of bounds")
        case .viewport(let report):
            let v = report.viewport
            expect([v.x, v.y, v.width, v.height].allSatisfy { $0.isFinite && abs($0) <= limits.maxCoordinate }, "a plot out of bounds")
            expect(v.width > 0 && v.height > 0, "an empty plot")
        case .view(let view):
            if let domain = view.domain {
                expect(ClientMessage.ViewRequest.problem(from: domain.lowerBound, to: domain.upperBound) == nil, "an invalid view")
            }
        case .publish(let publish):
            for point in publish.points {
                expect(point.y.map(\.isFinite) ?? true, "a non-finite y")
                if case .number(let x) = point.x { expect(x.isFinite, "a non-finite x") }
            }
        case .key:
            break
        }
    }

    static func checkRefusal(_ error: ProtocolError, _ limits: ProtocolLimits) {
        expect(error.message.utf8.count <= maxErrorMessageBytes, "a \(error.message.utf8.count)-byte error message")
        if let ref = error.ref { expect(ref.utf8.count <= limits.maxRefLength, "an error echoing a \(ref.utf8.count)-byte ref") }
    }

    /// The one chart schema: `ChartSpec.parse` (`PUT /api/charts/{id}`), `Dashboard.parse` (the
    /// dashboard file) and `ChartSpec.decodeList`, each on the same input. What is accepted obeys
    /// the schema's limits and parses back from its own encoding to the same value.
    static let spec = FuzzTarget(name: "spec", summary: "ChartSpec.parse, Dashboard.parse (dashboard files), decodeList") { bytes in
        do {
            let spec = try ChartSpec.parse(bytes)
            checkSpec(spec)
            let again = try? ChartSpec.parse(spec.encoded())
            expect(again == spec, "\(spec) came back as \(String(describing: again))")
        } catch let error as ProtocolError {
            checkSchemaRefusal(error)
        } catch {
            fatalError("unexpected error type: \(error)")
        }
        do {
            let dashboard = try Dashboard.parse(bytes)
            dashboard.charts.forEach(checkSpec)
            expect(Set(dashboard.charts.map(\.id)).count == dashboard.charts.count, "two charts with one id")
            let again = try? Dashboard.parse(dashboard.encode())
            expect(again == dashboard, "a dashboard came back as \(String(describing: again))")
        } catch let error as ProtocolError {
            checkSchemaRefusal(error)
        } catch {
            fatalError("unexpected error type: \(error)")
        }
        do {
            let specs = try ChartSpec.decodeList(bytes)
            specs.forEach(checkSpec)
            let again = try? ChartSpec.decodeList(ChartSpec.encodeList(specs))
            expect(again == specs, "a chart list came back as \(String(describing: again))")
        } catch let error as ProtocolError {
            checkSchemaRefusal(error)
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }

    static func checkSpec(_ spec: ChartSpec) {
        expect(ChartSpec.isValidID(spec.id), "an invalid id")
        expect(!spec.title.isEmpty && spec.title.count <= ChartSpec.maxTextLength, "a title of \(spec.title.count) characters")
        for text in [spec.title, spec.xLabel, spec.yLabel] + spec.categories {
            expect(text.utf8.count <= ChartSpec.maxTextBytes, "a text of \(text.utf8.count) bytes")
        }
        expect(spec.categories.reduce(0) { $0 + $1.utf8.count } <= ChartSpec.maxCategoryBytes, "categories over their bytes")
        expect(spec.series.count <= ChartSpec.maxSeries, "\(spec.series.count) series")
        expect(Set(spec.series).count == spec.series.count, "a series listed twice")
        expect(spec.series.allSatisfy { !$0.isEmpty && $0.utf8.count <= ChartSpec.maxSeriesNameBytes }, "a series name out of bounds")
        if spec.xKind == .category {
            expect((1...ChartSpec.maxCategories).contains(spec.categories.count), "\(spec.categories.count) categories")
            expect(Set(spec.categories).count == spec.categories.count, "a category listed twice")
            expect(spec.window == nil, "a category chart with a window")
        } else {
            expect(spec.categories.isEmpty, "categories on a \(spec.xKind) chart")
            expect(spec.window.map { (1...ChartSpec.maxWindow).contains($0) } ?? false, "window \(String(describing: spec.window))")
        }
        if let domain = spec.fixedYDomain {
            expect(domain.lowerBound.isFinite && domain.upperBound.isFinite && domain.lowerBound < domain.upperBound, "y domain \(domain)")
        }
        expect((0...3_650 * 86_400).contains(spec.retentionSeconds), "retention \(spec.retentionSeconds)")
    }

    static func checkSchemaRefusal(_ error: ProtocolError) {
        expect(error.code == .badField || error.code == .badJSON, "refused with \(error.code)")
        expect(error.message.utf8.count <= maxErrorMessageBytes, "a \(error.message.utf8.count)-byte error message")
    }
}
