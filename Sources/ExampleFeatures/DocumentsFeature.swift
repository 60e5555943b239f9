import ActionCore

/// `Documents`: open, edit and close named documents; closing ends the feature's action stack.
public enum DocumentsFeature: Feature {
    /// "Documents".
    public static let name = "Documents"
    /// "Opens, edits and closes documents".
    public static let description = "Opens, edits and closes documents"

    /// `Documents.open {"name"}` → `{"name","text"}`.
    public static let open = action(DocumentOpenAction.self, name: "open")
    /// `Documents.edit {"name","text"}` → `{"name","text"}`; fails `documentNotOpen` when not open.
    public static let edit = action(DocumentEditAction.self, name: "edit")
    /// `Documents.close {"name"}` → `{"name","text"}`, closing the action stack.
    public static let close = action(DocumentCloseAction.self, name: "close")

    /// Declares `open`, `edit` and `close`.
    public static func prepare(actions: inout FeatureActions) {
        actions.declare(open)
        actions.declare(edit)
        actions.declare(close)
    }

    /// The open documents, per session.
    static let store = DocumentStore()
}

extension ActionError.Code {
    /// `Documents.edit` was asked to edit a document that is not open in the session.
    public static let documentNotOpen = Self("documentNotOpen")
}

/// Names a document.
public struct DocumentReference: Codable, Sendable, Hashable {
    /// The document's name.
    public var name: String

    /// Creates a reference.
    public init(name: String) {
        self.name = name
    }
}

/// A document's state.
public struct DocumentContent: Codable, Sendable, Hashable {
    /// The document's name.
    public var name: String
    /// The document's text.
    public var text: String

    /// Creates a document state.
    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

/// Opens a document (an empty one when new; reopening keeps its text).
public enum DocumentOpenAction: Action {
    /// The document to act on.
    public typealias Input = DocumentReference
    /// The document's state afterwards.
    public typealias Output = DocumentContent

    /// "Opens a document".
    public static let description = "Opens a document"

    /// Opens the document in the session.
    public static func perform(context: ActionContext<DocumentReference>, completion: Completion) -> Completion.Status {
        let document = DocumentsFeature.store.open(context.input.name, in: context.sessionName)
        return completion.completedSync(.success(document))
    }
}

/// Replaces the text of an open document.
public enum DocumentEditAction: Action {
    /// The document to act on.
    public typealias Input = DocumentContent
    /// The document's state afterwards.
    public typealias Output = DocumentContent

    /// "Replaces the text of an open document".
    public static let description = "Replaces the text of an open document"

    /// Edits the document, or fails with `documentNotOpen`.
    public static func perform(context: ActionContext<DocumentContent>, completion: Completion) -> Completion.Status {
        guard let document = DocumentsFeature.store.edit(context.input, in: context.sessionName) else {
            let error = ActionError(code: .documentNotOpen, message: "Document '\(context.input.name)' is not open")
            return completion.completedSync(.failure(error))
        }
        return completion.completedSync(.success(document))
    }
}

/// Closes a document and the `Documents` action stack (closing an unknown document is harmless).
public enum DocumentCloseAction: Action {
    /// The document to act on.
    public typealias Input = DocumentReference
    /// The document's state afterwards.
    public typealias Output = DocumentContent

    /// "Closes a document, ending the action stack".
    public static let description = "Closes a document, ending the action stack"

    /// Closes the document and completes with `closeActionStack`.
    public static func perform(context: ActionContext<DocumentReference>, completion: Completion) -> Completion.Status {
        let document = DocumentsFeature.store.close(context.input.name, in: context.sessionName)
        return completion.completedSync(.success(document, closeActionStack: true))
    }
}
