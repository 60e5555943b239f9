/// The open documents of every session, keyed by session name then document name.
final class DocumentStore: Sendable {
    private let documents = LockedState<[String: [String: String]]>([:])

    func open(_ name: String, in session: String) -> DocumentContent {
        documents.withLock { documents in
            let text = documents[session, default: [:]][name, default: ""]
            documents[session, default: [:]][name] = text
            return DocumentContent(name: name, text: text)
        }
    }

    func edit(_ edit: DocumentContent, in session: String) -> DocumentContent? {
        documents.withLock { documents in
            guard documents[session]?[edit.name] != nil else { return nil }
            documents[session]?[edit.name] = edit.text
            return edit
        }
    }

    func close(_ name: String, in session: String) -> DocumentContent {
        documents.withLock { documents in
            let text = documents[session]?.removeValue(forKey: name) ?? ""
            if documents[session]?.isEmpty == true {
                documents[session] = nil
            }
            return DocumentContent(name: name, text: text)
        }
    }
}
