extension ActionSession {
    /// The session ``IntentAction``s perform in by default, as Flint's `intentActionSession`:
    /// named `Intents`, user-initiated (someone asked for the intent), its main queue a serial
    /// queue of its own, where intent actions run.
    public static let intents = ActionSession(name: "Intents", userInitiated: true)
}
