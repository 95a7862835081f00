import CYAML

/// A YAML node as pipeline files use it: scalars stay text (converted where a number or a
/// boolean is expected, never guessed), mappings keep file order, and every node knows its line.
struct YAMLNode: Sendable {
    enum Content: Sendable {
        case scalar(String, block: Bool)
        case mapping([(key: YAMLNode, value: YAMLNode)])
        case sequence([YAMLNode])
    }

    let content: Content
    /// 1-based line where the node starts (a block scalar's `|` or `>` indicator).
    let line: Int

    var string: String? { if case .scalar(let s, _) = content { s } else { nil } }
    /// A literal (`|`) or folded (`>`) scalar, whose text starts on the next line.
    var isBlockScalar: Bool { if case .scalar(_, true) = content { true } else { false } }
    var mapping: YAMLMapping? { if case .mapping(let pairs) = content { YAMLMapping(pairs: pairs) } else { nil } }
    var sequence: [YAMLNode]? { if case .sequence(let items) = content { items } else { nil } }

    var int: Int? { string.flatMap { Int($0.hasPrefix("+") ? String($0.dropFirst()) : $0) } }
    var float: Double? { string.flatMap { Double($0) } }
    /// YAML 1.1's boolean words.
    var bool: Bool? {
        switch string?.lowercased() {
        case "true", "yes", "on", "y": true
        case "false", "no", "off", "n": false
        default: nil
        }
    }
}

/// A mapping's pairs in file order, looked up by key text.
struct YAMLMapping: Sequence, Sendable {
    let pairs: [(key: YAMLNode, value: YAMLNode)]
    subscript(key: String) -> YAMLNode? { pairs.first { $0.key.string == key }?.value }
    func makeIterator() -> IndexingIterator<[(key: YAMLNode, value: YAMLNode)]> { pairs.makeIterator() }
}

/// A YAML syntax error: libyaml's problem and the 1-based line it was found on.
struct YAMLSyntaxError: Error, Sendable {
    let problem: String
    let line: Int
}

enum YAMLComposer {
    /// The single document in `text`, or nil for an empty stream. Anchors and aliases resolve;
    /// a second document is an error.
    static func compose(_ text: String) throws(YAMLSyntaxError) -> YAMLNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) != 0 else { throw YAMLSyntaxError(problem: "out of memory", line: 1) }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buf) throws(YAMLSyntaxError) -> YAMLNode? in
            yaml_parser_set_input_string(&parser, buf.baseAddress, buf.count)
            var builder = Builder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) != 0 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw YAMLSyntaxError(problem: context + problem, line: Int(parser.problem_mark.line) + 1)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT { return builder.root }
                try builder.take(event)
            }
        }
    }

    /// Builds the tree from libyaml's events with a stack of open collections.
    private struct Builder {
        private enum Open {
            case mapping(line: Int, anchor: String?, pairs: [(key: YAMLNode, value: YAMLNode)], pendingKey: YAMLNode?)
            case sequence(line: Int, anchor: String?, items: [YAMLNode])
        }
        private var stack: [Open] = []
        private var anchors: [String: YAMLNode] = [:]
        private var documents = 0
        private(set) var root: YAMLNode?

        mutating func take(_ event: yaml_event_t) throws(YAMLSyntaxError) {
            let line = Int(event.start_mark.line) + 1
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw YAMLSyntaxError(problem: "a pipeline file holds one YAML document", line: line) }
            case YAML_SCALAR_EVENT:
                let s = event.data.scalar
                let value = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
                let block = s.style == YAML_LITERAL_SCALAR_STYLE || s.style == YAML_FOLDED_SCALAR_STYLE
                try add(YAMLNode(content: .scalar(value, block: block), line: line), anchor: Self.text(s.anchor))
            case YAML_ALIAS_EVENT:
                let name = Self.text(event.data.alias.anchor) ?? ""
                guard let node = anchors[name] else { throw YAMLSyntaxError(problem: "unknown alias *\(name)", line: line) }
                try add(node, anchor: nil)
            case YAML_MAPPING_START_EVENT:
                stack.append(.mapping(line: line, anchor: Self.text(event.data.mapping_start.anchor), pairs: [], pendingKey: nil))
            case YAML_SEQUENCE_START_EVENT:
                stack.append(.sequence(line: line, anchor: Self.text(event.data.sequence_start.anchor), items: []))
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                switch stack.removeLast() {
                case .mapping(let l, let anchor, let pairs, _): try add(YAMLNode(content: .mapping(pairs), line: l), anchor: anchor)
                case .sequence(let l, let anchor, let items): try add(YAMLNode(content: .sequence(items), line: l), anchor: anchor)
                }
            default:
                break  // stream and document ends carry nothing
            }
        }

        private mutating func add(_ node: YAMLNode, anchor: String?) throws(YAMLSyntaxError) {
            if let anchor { anchors[anchor] = node }
            guard let top = stack.popLast() else { root = node; return }
            switch top {
            case .sequence(let l, let a, var items):
                items.append(node)
                stack.append(.sequence(line: l, anchor: a, items: items))
            case .mapping(let l, let a, var pairs, let key?):
                if let k = key.string, pairs.contains(where: { $0.key.string == k }) {
                    throw YAMLSyntaxError(problem: "duplicate key \"\(k)\"", line: key.line)
                }
                pairs.append((key, node))
                stack.append(.mapping(line: l, anchor: a, pairs: pairs, pendingKey: nil))
            case .mapping(let l, let a, let pairs, nil):
                stack.append(.mapping(line: l, anchor: a, pairs: pairs, pendingKey: node))
            }
        }

        private static func text(_ p: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            p.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        }
    }
}
