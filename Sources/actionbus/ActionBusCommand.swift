import ArgumentParser

@main
struct ActionBusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "actionbus", abstract: "Run action sessions over ZeroMQ.")
}
