import Foundation
import ZeroMQ

/// Key files as `actionbus keygen` writes them: `NAME.key` holds the secret key, `NAME.pub` the
/// public key, each as 40 Z85 characters on one line.
public enum CurveKeyFile {
    /// A readable failure to load a key.
    public struct LoadError: Error, CustomStringConvertible {
        /// Which file, and what is wrong with it.
        public let description: String
    }

    /// Generates a key pair and writes `NAME.key` (mode 0600) and `NAME.pub`.
    @discardableResult
    public static func generate(base: String) throws -> CurveKeyPair {
        let keys = try CurveKeyPair.generate()
        let secretPath = base + ".key", publicPath = base + ".pub"
        guard FileManager.default.createFile(
            atPath: secretPath, contents: Data((keys.secretKey + "\n").utf8), attributes: [.posixPermissions: 0o600]
        ) else {
            throw LoadError(description: "cannot write \(secretPath)")
        }
        try (keys.publicKey + "\n").write(toFile: publicPath, atomically: true, encoding: .utf8)
        return keys
    }

    /// Reads one Z85 key (40 characters) from a file.
    public static func readKey(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw LoadError(description: "cannot read key file \(path)")
        }
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard key.utf8.count == 40, (try? Z85.decode(key))?.count == 32 else {
            throw LoadError(description: "\(path) does not hold a 40-character Z85 CURVE key")
        }
        return key
    }

    /// Reads every `.pub` file in a directory.
    public static func readPublicKeys(in directory: String) throws -> Set<String> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw LoadError(description: "cannot list key directory \(directory)")
        }
        return Set(try names.filter { $0.hasSuffix(".pub") }.map { try readKey(directory + "/" + $0) })
    }
}
