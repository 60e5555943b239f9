import CZeroMQ

/// A CURVE key pair as 40-character Z85 strings.
public struct CurveKeyPair: Sendable, Hashable {
    /// The public key, shareable.
    public let publicKey: String
    /// The secret key, never to leave its owner.
    public let secretKey: String

    /// Wraps existing keys.
    public init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Generates a fresh key pair with `zmq_curve_keypair`.
    public static func generate() throws -> CurveKeyPair {
        var publicKey = [CChar](repeating: 0, count: 41)
        var secretKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicKey, &secretKey) == 0 else {
            throw ZMQError.last("zmq_curve_keypair")
        }
        return CurveKeyPair(publicKey: String(nulTerminated: publicKey), secretKey: String(nulTerminated: secretKey))
    }

    /// Derives the key pair of a Z85 secret key with `zmq_curve_public`.
    public init(secretKey: String) throws {
        guard secretKey.utf8.count == 40 else {
            throw ZMQError(errno: EINVAL, call: "zmq_curve_public")
        }
        var publicKey = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicKey, secretKey) == 0 else {
            throw ZMQError.last("zmq_curve_public")
        }
        self.init(publicKey: String(nulTerminated: publicKey), secretKey: secretKey)
    }
}
