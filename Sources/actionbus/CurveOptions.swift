import ActionTransport
import ArgumentParser

/// CURVE options of workers, clients and subscribers.
struct CurveClientOptions: ParsableArguments {
    @Option(help: "This peer's secret key file (from 'actionbus keygen'); enables CURVE.")
    var curveSecretKey: String?
    @Option(help: "The coordinator's public key file (NAME.pub).")
    var coordinatorKey: String?

    func validate() throws {
        guard (curveSecretKey == nil) == (coordinatorKey == nil) else {
            throw ValidationError("--curve-secret-key and --coordinator-key go together")
        }
    }

    /// The loaded keys, or nil for plaintext.
    func keys() throws -> CurveClientKeys? {
        guard let curveSecretKey, let coordinatorKey else { return nil }
        do {
            return try CurveClientKeys(secretKeyFile: curveSecretKey, serverKeyFile: coordinatorKey)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// CURVE options of the coordinator.
struct CurveServerOptions: ParsableArguments {
    @Option(help: "The coordinator's secret key file; enables CURVE on all three sockets.")
    var curveSecretKey: String?
    @Option(help: "Directory of .pub files allowed to perform and subscribe.")
    var allowClients: String?
    @Option(help: "Directory of .pub files allowed to register as workers.")
    var allowWorkers: String?

    func validate() throws {
        let given = [curveSecretKey, allowClients, allowWorkers].filter { $0 != nil }.count
        guard given == 0 || given == 3 else {
            throw ValidationError("--curve-secret-key, --allow-clients and --allow-workers go together")
        }
    }

    /// The loaded keys, or nil for plaintext.
    func keys() throws -> CurveServerKeys? {
        guard let curveSecretKey, let allowClients, let allowWorkers else { return nil }
        do {
            return try CurveServerKeys(
                secretKeyFile: curveSecretKey, allowedClientsDirectory: allowClients, allowedWorkersDirectory: allowWorkers
            )
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
