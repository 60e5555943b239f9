import ActionTransport
import ArgumentParser

/// `actionbus keygen`: a CURVE key pair for a coordinator, worker or client.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen", abstract: "Write a CURVE key pair: NAME.key (secret, mode 0600) and NAME.pub."
    )

    @Option(help: "The path and base name of the key files.")
    var out: String

    func run() throws {
        let keys = try CurveKeyFile.generate(base: out)
        printLine("wrote \(out).key and \(out).pub (public key \(keys.publicKey))")
    }
}
