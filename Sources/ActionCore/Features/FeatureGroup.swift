/// A feature made of sub-features; the root group describes a whole application.
///
/// ```swift
/// enum AppFeatures: FeatureGroup {
///     static let description = "Everything the app does"
///     static var subfeatures: [any Feature.Type] { [EchoFeature.self, DocumentsFeature.self] }
/// }
/// ```
public protocol FeatureGroup: Feature {
    /// The features (and groups) this group contains.
    static var subfeatures: [any Feature.Type] { get }
}
