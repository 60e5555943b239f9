import ActionOperations
import ArgumentParser
import Logging

/// Who may read outcomes' payloads over the coordinator's HTTP side (`/api/outcomes`, the
/// dashboard's live tail): a bearer token's holder, else anyone on a loopback address only.
struct PayloadAccessOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A file holding the bearer token that /api/outcomes and the dashboard's live tail require (Authorization: Bearer TOKEN). Without it they are served on a loopback --http address only.",
        valueName: "file"
    ))
    var httpTokenFile: String?
    @Flag(help: "Serve outcomes' payloads over HTTP without a token on any address (anyone who reaches --http reads every output).")
    var httpUnauthenticatedPayloads = false

    func validate() throws {
        if httpTokenFile != nil && httpUnauthenticatedPayloads {
            throw ValidationError("--http-token-file and --http-unauthenticated-payloads exclude each other")
        }
    }

    /// The access the options choose for a server on `address`, saying in the log what an
    /// opted-in open server gives up.
    func access(address: String, logger: Logger) throws -> PayloadAccess {
        if let httpTokenFile { return try PayloadAccess.tokenFile(httpTokenFile) }
        if httpUnauthenticatedPayloads {
            logger.warning("--http-unauthenticated-payloads: anyone who reaches the HTTP address reads every outcome's output", metadata: [
                "http.address": "\(address)",
            ])
            return .open
        }
        return .default(address: address)
    }
}
